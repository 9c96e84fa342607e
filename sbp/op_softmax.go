package sbp

import (
	"fmt"
	"strconv"

	"github.com/stridelab/stridelab/tensor"
)

type softmaxOp struct{ axis int }

// Softmax normalises a global tensor along one dim (tensor.Backend.
// Softmax): for each line x along d,
//
//	y_j = exp(x_j − max x) / Σ_k exp(x_k − max x)
//
// A negative axis counts from the end (−1 is the last dim), resolved
// against the input's rank. Every output reads its whole line, so a
// device can compute its part only when it holds whole lines:
//
//	S(e) -> S(e)   for every axis e ≠ d
//	B    -> B
//
// S(d) is not a signature: each device would normalise over its own part
// of the line, and the parts would not sum to 1 together. Nor is any
// partial: exp(x₁ + x₂) is not exp(x₁) + exp(x₂), and a P(max) part may
// hold anything below the whole. A planner boxes a split along d first
// (to B, or to S(e) on another dim); a program that wants the split kept
// writes softmax out of max, sub, exp, sum and div, whose partial sums
// show as P and whose all-reduce is then in the plan.
func Softmax(axis int) Op { return softmaxOp{axis: axis} }

func (softmaxOp) Name() string     { return "softmax" }
func (o softmaxOp) String() string { return fmt.Sprintf("softmax along %d", o.axis) }
func (softmaxOp) Arity() int       { return 1 }

// dim resolves the axis against a rank (resolveDim).
func (o softmaxOp) dim(rank int) (int, bool) { return resolveDim(o.axis, rank) }

// resolveDim is dim d of a rank-r tensor counted from the front: d, or
// d + r for a negative d (−1 the last); ok says whether it is one.
func resolveDim(d, r int) (int, bool) {
	if d < 0 {
		d += r
	}
	return d, d >= 0 && d < r
}

func (o softmaxOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	r := len(in[0])
	if r == 0 {
		return nil, newError(ErrShape, describe(o, in), "a scalar has no dim to normalise along")
	}
	if _, ok := o.dim(r); !ok {
		return nil, newError(ErrShape, describe(o, in), "the tensor has %d dims, so the dim is %d to %d (negative counts from the end), not %d", r, -r, r-1, o.axis)
	}
	return in[0].Clone(), nil
}

func (o softmaxOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := o.oneflow(in)
	return append(sigs, Signature{In: []SBP{B}, Out: B})
}

func (o softmaxOp) why(in []tensor.Shape, sbps []SBP) string {
	d, _ := o.dim(len(in[0]))
	switch s := sbps[0]; {
	case s.Kind == Split && s.Axis == d:
		return fmt.Sprintf("softmax along %d needs whole lines along dim %d: each device would normalise over its own part (the parts would not sum to 1); box it to B or to S on another dim first, or write the softmax out of max, sub, exp, sum and div", d, d)
	case s.Kind == Partial:
		return fmt.Sprintf("softmax of a sum of parts is not made of the parts' softmaxes (exp is not linear, and a %v part may hold anything below the whole); only S on another dim and B pass through softmax", s)
	}
	return ""
}

func (o softmaxOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o softmaxOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	d, ok := o.dim(in[0].Layout().Rank())
	if !ok {
		_, err := o.OutShape([]tensor.Shape{in[0].Shape()})
		return tensor.Tensor{}, err
	}
	return be.Softmax(in[0], d)
}

// oneflow is OneFlow's list: SoftmaxOp::GetSbp (oneflow/user/ops/
// softmax_op.cpp) splits in and out alike on every axis but the last,
// the one its kernel normalises along (flow.softmax along another dim
// transposes it last first); here the softmax's own dim d takes the
// last's place: S(e) -> S(e) for every e ≠ d, in order.
func (o softmaxOp) oneflow(in []tensor.Shape) []Signature {
	d, _ := o.dim(len(in[0]))
	var sigs []Signature
	for e := range in[0] {
		if e != d {
			sigs = append(sigs, Signature{In: []SBP{S(e)}, Out: S(e)})
		}
	}
	return sigs
}

func init() {
	const usage = "softmax takes a name and a dim: softmax X -1 (negative counts from the end)"
	registerOp(&OpSpec{
		Name: "softmax",
		Grad: gradSoftmax,
		Words: []OpWord{{Word: "softmax", Usage: "X -1", Order: 150,
			Build: func(c *WordCall) (Op, error) {
				if len(c.Args) != 2 {
					return nil, UsageError(usage)
				}
				d, err := strconv.Atoi(c.Args[1])
				if err != nil {
					return nil, usagef("softmax's dim %q is not an integer: softmax X -1 (negative counts from the end)", c.Args[1])
				}
				if _, err := c.Input(c.Args[0]); err != nil {
					return nil, err
				}
				return Softmax(d), nil
			},
			Spell: func(p OpParams) (string, bool) { return " " + strconv.Itoa(p.Axis), true },
		}},
		Global: func(lib string, p OpParams, x []string, in []tensor.Shape) string {
			d := p.Axis
			if d < 0 {
				d += len(in[0])
			}
			return fmt.Sprintf("%s.softmax(%s, dim=%d)", lib, x[0], d)
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("softmax(%s, %d)", x[0], p.Axis)
		},
	})
}

// gradSoftmax is softmax's backward (softmax.cpp): softmax_grad(y, dy),
// y · (dy − Σ_d (dy · y)).
func gradSoftmax(b Backward, c GradCall) (string, error) {
	d := Params(c.Op).Axis
	return b.Add(c.Name, SoftmaxGrad(d), fmt.Sprintf("%s = %s · (grad - sum(grad · %s, dim %d)) (softmax_grad)", c.Why, c.Out, c.Out, d), c.Out, c.Dy)
}
