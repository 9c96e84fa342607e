package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type broadcastMatmulGradBOp struct{}

// BroadcastMatmulGradB is OneFlow's broadcast_matmul_grad_b(a, dy): the
// gradient of a 2-D b in a batched product y = a · b, a of shape
// [..., m, k] and dy [..., m, n]: every batch's and row's a^T · dy
// summed, a [k, n] matrix,
//
//	db[p, q] = Σ_{β, i} a[β, i, p] · dy[β, i, q]
//
// OneFlow's list (BroadcastMatmulGradBOp::GetSbp), for greedy:
//
//	S(i) x S(i) -> P     every axis i of a but its last (a batch or m)
//	S(k) x B    -> S(0)  a's last axis
//	B    x S(n) -> S(1)  dy's last axis
//
// and for exact also B x B -> B and the partials it is linear in,
// P x B -> P and B x P -> P.
func BroadcastMatmulGradB() Op { return broadcastMatmulGradBOp{} }

func (broadcastMatmulGradBOp) Name() string   { return "broadcast_matmul_grad_b" }
func (broadcastMatmulGradBOp) String() string { return "broadcast_matmul_grad_b" }
func (broadcastMatmulGradBOp) Arity() int     { return 2 }

func (o broadcastMatmulGradBOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	a, dy := in[0], in[1]
	if len(a) < 2 || len(a) != len(dy) || !a[:len(a)-1].Equal(dy[:len(dy)-1]) {
		return nil, newError(ErrShape, describe(o, in), "a [..., m, k] and dy [..., m, n] must agree on every dim but the last: %v and %v", a, dy)
	}
	return tensor.Shape{a[len(a)-1], dy[len(dy)-1]}, nil
}

func (o broadcastMatmulGradBOp) oneflow(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	last := len(in[0]) - 1
	var sigs []Signature
	for i := range last {
		sigs = append(sigs, Signature{In: []SBP{S(i), S(i)}, Out: PSum})
	}
	return append(sigs, Signature{In: []SBP{S(last), B}, Out: S(0)}, Signature{In: []SBP{B, S(last)}, Out: S(1)})
}

func (o broadcastMatmulGradBOp) Signatures(in []tensor.Shape) []Signature {
	sigs := o.oneflow(in)
	if sigs == nil {
		return nil
	}
	return append(sigs, Signature{In: []SBP{B, B}, Out: B}, Signature{In: []SBP{PSum, B}, Out: PSum}, Signature{In: []SBP{B, PSum}, Out: PSum})
}

func (o broadcastMatmulGradBOp) why(in []tensor.Shape, sbps []SBP) string {
	if a, d := sbps[0], sbps[1]; a.Kind == Split && d.Kind == Split && a.Axis != d.Axis {
		return fmt.Sprintf("a and dy are summed together over every axis but their last, so they split alike (S(%d) pairs with S(%d))", a.Axis, a.Axis)
	}
	return ""
}

func (o broadcastMatmulGradBOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local flattens the device's a and dy to [M, k] and [M, n] and
// multiplies a^T · dy.
func (o broadcastMatmulGradBOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	flat := make([]tensor.Tensor, 2)
	for j, t := range in {
		s := t.Shape()
		rows := 1
		for _, n := range s[:len(s)-1] {
			rows *= n
		}
		v, err := t.Reshape([]int{rows, s[len(s)-1]})
		if err != nil {
			m, merr := be.Materialize(t)
			if merr != nil {
				return tensor.Tensor{}, merr
			}
			defer m.Release()
			if v, err = m.Reshape([]int{rows, s[len(s)-1]}); err != nil {
				return tensor.Tensor{}, err
			}
		}
		flat[j] = v
	}
	return MatmulT(true, false).Local(be, flat, out)
}

func init() {
	registerOp(&OpSpec{
		Name: "broadcast_matmul_grad_b", // the backward's only
		Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.matmul(%s.flatten(0, -2).transpose(0, 1), %s.flatten(0, -2))", lib, x[0], x[1])
		},
		Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("matmul(%s.flatten(0, -2).transpose(0, 1), %s.flatten(0, -2))", x[0], x[1])
		},
	})
}
