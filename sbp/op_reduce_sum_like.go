package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type reduceSumLikeOp struct{ to tensor.Shape }

// ReduceSumLike is OneFlow's reduce_sum_like(x, like): x summed to
// like's shape to, like read for its shape alone. OneFlow's broadcast
// binary ops and broadcast matmul reduce a gradient to the shape of an
// operand that broadcast with it (BroadcastReduceSumLike). Its
// signatures are the sum's on x (S kept → S, S reduced → P(sum), B → B,
// P(sum) → P(sum)), each with like in any layout (B, S(i), P(sum)).
// OneFlow's list (reduce_like_ops.cpp), for greedy, per axis i of x
// that is not of size 1:
//
//	S(i) x B    -> P        i reduced
//	S(i) x P    -> P        i reduced
//	S(i) x S(j) -> S(j)     i kept, j its axis in like
//	B    x P    -> B
//
// and the all-B signature after.
func ReduceSumLike(to tensor.Shape) Op { return reduceSumLikeOp{to: to.Clone()} }

func (reduceSumLikeOp) Name() string     { return "reduce_sum_like" }
func (o reduceSumLikeOp) String() string { return fmt.Sprintf("reduce_sum_like to %v", o.to) }
func (reduceSumLikeOp) Arity() int       { return 2 }

func (o reduceSumLikeOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if !in[1].Equal(o.to) {
		return nil, newError(ErrShape, describe(o, in), "like has shape %v, not the %v the op sums to", in[1], o.to)
	}
	return Reduce(tensor.Sum, o.to).OutShape(in[:1])
}

func (o reduceSumLikeOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	var sigs []Signature
	for _, r := range Reduce(tensor.Sum, o.to).Signatures(in[:1]) {
		for _, l := range likeLayouts(len(o.to)) {
			sigs = append(sigs, Signature{In: []SBP{r.In[0], l}, Out: r.Out})
		}
	}
	return sigs
}

func (o reduceSumLikeOp) oneflow(in []tensor.Shape) []Signature {
	reduced, err := tensor.ReducedAxes(in[0], o.to)
	if err != nil {
		return nil
	}
	lead := len(in[0]) - len(o.to)
	var sigs []Signature
	for i, r := range reduced {
		switch {
		case in[0][i] == 1:
		case r:
			sigs = append(sigs, Signature{In: []SBP{S(i), B}, Out: PSum}, Signature{In: []SBP{S(i), PSum}, Out: PSum})
		default:
			sigs = append(sigs, Signature{In: []SBP{S(i), S(i - lead)}, Out: S(i - lead)})
		}
	}
	return append(sigs, Signature{In: []SBP{B, PSum}, Out: B})
}

func (o reduceSumLikeOp) why(in []tensor.Shape, sbps []SBP) string {
	return Reduce(tensor.Sum, o.to).why(in[:1], sbps[:1])
}

func (o reduceSumLikeOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Reduce(tensor.Sum, o.to).Args(in[:1], out)
}

// Local sums the device's x to its output shard (like is not read).
func (o reduceSumLikeOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return Reduce(tensor.Sum, o.to).Local(be, in[:1], out)
}

func init() {
	registerOp(&OpSpec{
		Name: "reduce_sum_like", // the backward's only
		Global: func(lib string, p OpParams, x []string, in []tensor.Shape) string {
			return SpecOf(Reduce(tensor.Sum, p.To)).Global(lib, OpParams{Name: "reduce", Reduce: tensor.Sum, To: p.To}, x[:1], in[:1])
		},
		Local: func(p OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return SpecOf(Reduce(tensor.Sum, p.To)).Local(OpParams{Name: "reduce", Reduce: tensor.Sum, To: p.To}, x[:1], each)
		},
	})
}

func (reduceSumLikeOp) likeArg() int { return 1 }
