package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type softmaxGradOp struct{ axis int }

// SoftmaxGrad is OneFlow's softmax_grad(y, dy) (softmax.cpp's gradient,
// softmax_op.cpp's list): the Jacobian-vector product of y = softmax(x)
// along axis (as written: negative counts from the end),
//
//	dx = y · (dy − Σ_axis (dy · y))
//
// Each line along axis is its own, so y and dy split alike on every
// other axis:
//
//	S(k) x S(k) -> S(k)    every axis k but the softmax's (OneFlow's list)
//	B    x B    -> B
//	B    x P    -> P       linear in dy (stridelab's, for exact)
func SoftmaxGrad(axis int) Op { return softmaxGradOp{axis: axis} }

func (softmaxGradOp) Name() string     { return "softmax_grad" }
func (o softmaxGradOp) String() string { return fmt.Sprintf("softmax_grad along %d", o.axis) }
func (softmaxGradOp) Arity() int       { return 2 }

func (o softmaxGradOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if _, err := Softmax(o.axis).OutShape(in[:1]); err != nil {
		return nil, err
	}
	if !in[0].Equal(in[1]) {
		return nil, newError(ErrShape, describe(o, in), "softmax_grad takes y and its gradient, of one shape: %v and %v", in[0], in[1])
	}
	return in[0].Clone(), nil
}

// dim is the op's axis counted from the front.
func (o softmaxGradOp) dim(rank int) int {
	if o.axis < 0 {
		return o.axis + rank
	}
	return o.axis
}

func (o softmaxGradOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	d := o.dim(len(in[0]))
	return alike(len(in[0]), func(k int) bool { return k != d })
}

func (o softmaxGradOp) oneflow(in []tensor.Shape) []Signature {
	return allBDropped(o.Signatures(in))
}

func (o softmaxGradOp) why(in []tensor.Shape, sbps []SBP) string {
	d := o.dim(len(in[0]))
	for _, s := range sbps {
		if s.Kind == Split && s.Axis == d {
			return fmt.Sprintf("dim %d is the softmax's: each line's sum needs the whole line, so it is never split", d)
		}
	}
	return ""
}

func (o softmaxGradOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local computes y · (dy − Σ (dy · y)) on the device's lines.
func (o softmaxGradOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	y, dy := in[0], in[1]
	line := y.Shape().Clone()
	line[o.dim(len(line))] = 1
	c := &calc{be: be}
	return c.done(c.bin(tensor.Mul, y, c.bin(tensor.Sub, dy, c.reduce(tensor.Sum, c.bin(tensor.Mul, dy, y), line))))
}

func init() {
	call := func(y, dy string, d int) string {
		return fmt.Sprintf("(%s * (%s - (%s * %s).sum(dim=%d, keepdim=True)))", y, dy, dy, y, d)
	}
	registerOp(&OpSpec{
		Name: "softmax_grad", // the backward's only
		Global: func(_ string, p OpParams, x []string, in []tensor.Shape) string {
			return call(x[0], x[1], softmaxGradOp{axis: p.Axis}.dim(len(in[0])))
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return call(x[0], x[1], p.Axis)
		},
	})
}
