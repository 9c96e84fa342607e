package sbp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/stridelab/stridelab/tensor"
)

type unaryGradOp struct{ op tensor.UnaryOp }

// UnaryGrad is the gradient op OneFlow writes for a unary op f (its
// *_grad op: exp_grad, log_grad, sqrt_grad, rsqrt_grad, erf_grad,
// square_grad, tanh_grad, relu_grad): dx = dy · f'(x), from v and dy,
// where v is x for the math ops (exp, log, sqrt, rsqrt, erf, square:
// MATH_UNARY_ELEMENTWISE_PRIMITIVE_FUNC_BWD_WITH_DY_X_SEQ in
// math_unary_elementwise_seq.h) and y = f(x) for tanh and relu
// (relu_grad takes y):
//
//	exp    dy · exp(x)         log    dy / x
//	sqrt   dy / sqrt(x) · ½    rsqrt  dy · rsqrt(x)³ · (−½)
//	erf    dy · 2/√π · e^(−x²) square dy · 2x
//	tanh   dy · (1 − y²)       relu   dy · [y > 0]
//
// Each element is its own, so v and dy split alike:
//
//	S(k) x S(k) -> S(k)    every axis k (OneFlow's list: SplitForEachAxis)
//	B    x B    -> B
//	B    x P    -> P       linear in dy (stridelab's, for exact)
func UnaryGrad(op tensor.UnaryOp) Op { return unaryGradOp{op: op} }

func (o unaryGradOp) Name() string   { return o.op.String() + "_grad" }
func (o unaryGradOp) String() string { return o.Name() }
func (unaryGradOp) Arity() int       { return 2 }

// fromY reports whether the op takes f's output y rather than its input x.
func (o unaryGradOp) fromY() bool { return o.op == tensor.Tanh || o.op == tensor.Relu }

func (o unaryGradOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	switch o.op {
	case tensor.Exp, tensor.Log, tensor.Sqrt, tensor.Rsqrt, tensor.Tanh, tensor.Relu, tensor.Erf, tensor.Square:
	default:
		return nil, newError(ErrShape, describe(o, in), "%s has no gradient op of its own", o.op)
	}
	if !in[0].Equal(in[1]) {
		return nil, newError(ErrShape, describe(o, in), "%s takes the forward's tensor and its gradient, of one shape: %v and %v", o.Name(), in[0], in[1])
	}
	return in[0].Clone(), nil
}

// alike is the signatures of an elementwise gradient op whose two
// inputs split alike on the axes keep allows, then B x B -> B and
// B x P(sum) -> P(sum) (linear in dy, its second input).
func alike(rank int, keep func(k int) bool) []Signature {
	var sigs []Signature
	for k := range rank {
		if keep(k) {
			sigs = append(sigs, Signature{In: []SBP{S(k), S(k)}, Out: S(k)})
		}
	}
	return append(sigs, Signature{In: []SBP{B, B}, Out: B}, Signature{In: []SBP{B, PSum}, Out: PSum})
}

func (o unaryGradOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	return alike(len(in[0]), func(int) bool { return true })
}

func (o unaryGradOp) oneflow(in []tensor.Shape) []Signature {
	return allBDropped(o.Signatures(in))
}

// allBDropped is sigs with only their splits: OneFlow's list where it is
// SplitForEachAxis (EagerSignatures appends the all-B one).
func allBDropped(sigs []Signature) []Signature {
	var out []Signature
	for _, s := range sigs {
		if s.Out.Kind == Split {
			out = append(out, s)
		}
	}
	return out
}

func (o unaryGradOp) why(in []tensor.Shape, sbps []SBP) string {
	if sbps[0] != sbps[1] && sbps[0].Kind == Split {
		return fmt.Sprintf("%s pairs each element of %s with its gradient, so both split alike", o.Name(), map[bool]string{true: "y", false: "x"}[o.fromY()])
	}
	return ""
}

func (o unaryGradOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local computes dy · f'(v) on the device's shards with the backend's
// elementwise ops, each temporary released once used.
func (o unaryGradOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	v, dy := in[0], in[1]
	c := &calc{be: be}
	switch o.op {
	case tensor.Exp:
		return c.done(c.bin(tensor.Mul, dy, c.un(tensor.Exp, v)))
	case tensor.Log:
		return c.done(c.bin(tensor.Div, dy, v))
	case tensor.Sqrt:
		return c.done(c.scale(c.bin(tensor.Div, dy, c.un(tensor.Sqrt, v)), 0.5))
	case tensor.Rsqrt:
		r := c.un(tensor.Rsqrt, v)
		return c.done(c.scale(c.bin(tensor.Mul, c.bin(tensor.Mul, c.bin(tensor.Mul, dy, r), r), r), -0.5))
	case tensor.Tanh:
		return c.done(c.bin(tensor.Sub, dy, c.bin(tensor.Mul, c.bin(tensor.Mul, dy, v), v)))
	case tensor.Erf:
		return c.done(c.scale(c.bin(tensor.Mul, dy, c.un(tensor.Exp, c.un(tensor.Neg, c.un(tensor.Square, v)))), 2/math.Sqrt(math.Pi)))
	case tensor.Square:
		return c.done(c.scale(c.bin(tensor.Mul, dy, v), 2))
	}
	return c.done(c.bin(tensor.Mul, dy, c.un(tensor.Step, v)))
}

// calc chains backend calls, keeping the first error and releasing each
// temporary it made once the next call has read it (never an input).
type calc struct {
	be   tensor.Backend
	made []tensor.Tensor
	err  error
}

func (c *calc) keep(t tensor.Tensor, err error) tensor.Tensor {
	if err != nil && c.err == nil {
		c.err = err
	}
	if err == nil {
		c.made = append(c.made, t)
	}
	return t
}

func (c *calc) un(op tensor.UnaryOp, x tensor.Tensor) tensor.Tensor {
	if c.err != nil {
		return x
	}
	return c.keep(c.be.Unary(op, x))
}

func (c *calc) bin(op tensor.BinaryOp, a, b tensor.Tensor) tensor.Tensor {
	if c.err != nil {
		return a
	}
	return c.keep(c.be.Binary(op, a, b))
}

func (c *calc) reduce(op tensor.ReduceOp, x tensor.Tensor, to tensor.Shape) tensor.Tensor {
	if c.err != nil {
		return x
	}
	return c.keep(c.be.Reduce(op, x, to))
}

func (c *calc) scale(x tensor.Tensor, f float64) tensor.Tensor {
	if c.err != nil {
		return x
	}
	return c.keep(Scale(f).Local(c.be, []tensor.Tensor{x}, x.Shape()))
}

// done returns the last result, releasing every other temporary.
func (c *calc) done(t tensor.Tensor) (tensor.Tensor, error) {
	for _, m := range c.made[:max(0, len(c.made)-1)] {
		m.Release()
	}
	if c.err != nil {
		if len(c.made) > 0 {
			c.made[len(c.made)-1].Release()
		}
		return tensor.Tensor{}, c.err
	}
	return t, nil
}

// unaryGradCall spells dy · f'(v) in Python with the library lib.
func unaryGradCall(lib string, op tensor.UnaryOp, v, dy string) string {
	switch op {
	case tensor.Exp:
		return fmt.Sprintf("(%s * %s.exp(%s))", dy, lib, v)
	case tensor.Log:
		return fmt.Sprintf("(%s / %s)", dy, v)
	case tensor.Sqrt:
		return fmt.Sprintf("(%s / %s.sqrt(%s) * 0.5)", dy, lib, v)
	case tensor.Rsqrt:
		return fmt.Sprintf("(%s * %s.rsqrt(%s) ** 3 * -0.5)", dy, lib, v)
	case tensor.Tanh:
		return fmt.Sprintf("(%s * (1 - %s * %s))", dy, v, v)
	case tensor.Erf:
		return fmt.Sprintf("(%s * %s.exp(-(%s * %s)) * %s)", dy, lib, v, v, strconv.FormatFloat(2/math.Sqrt(math.Pi), 'g', -1, 64))
	case tensor.Square:
		return fmt.Sprintf("(%s * %s * 2)", dy, v)
	}
	return fmt.Sprintf("(%s * (%s > 0).to(%s.dtype))", dy, v, dy)
}

func init() {
	for _, op := range []tensor.UnaryOp{tensor.Exp, tensor.Log, tensor.Sqrt, tensor.Rsqrt, tensor.Tanh, tensor.Relu, tensor.Erf, tensor.Square} {
		registerOp(&OpSpec{
			Name: op.String() + "_grad", // the backward's only
			Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
				return unaryGradCall(lib, op, x[0], x[1])
			},
			Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
				return unaryGradCall("torch", op, x[0], x[1])
			},
		})
	}
}
