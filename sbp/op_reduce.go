package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type reduceOp struct {
	op tensor.ReduceOp
	to tensor.Shape
}

// Reduce sums (or maxes, mins) a global tensor down to the
// broadcast-compatible shape to (tensor.Backend.Reduce). With the output
// axes aligned on the right:
//
//	S(a) -> S(a')     a kept axis stays split
//	S(a) -> P(op)     a reduced axis: each device reduces its part, and
//	                  the parts combine with op (this is where P(max) and
//	                  P(min) come from)
//	B    -> B
//	P(op) -> P(op)    only a partial of the same op: Σ of partial sums is
//	                  the sum, but the max of partial sums is not
//
// A device whose part of a reduced axis is empty yields op's identity.
func Reduce(op tensor.ReduceOp, to tensor.Shape) Op { return reduceOp{op: op, to: to.Clone()} }

func (reduceOp) Name() string     { return "reduce" }
func (o reduceOp) String() string { return fmt.Sprintf("reduce %v to %v", o.op, o.to) }
func (reduceOp) Arity() int       { return 1 }

func (o reduceOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if _, err := tensor.ParseReduceOp(o.op.String()); err != nil {
		return nil, err
	}
	if _, err := o.to.NumElements(); err != nil {
		return nil, err
	}
	if _, err := tensor.ReducedAxes(in[0], o.to); err != nil {
		return nil, err
	}
	n, _ := in[0].NumElements()
	if m, _ := o.to.NumElements(); o.op != tensor.Sum && n == 0 && m > 0 {
		return nil, newError(ErrShape, describe(o, in), "%v over zero elements has no identity; the reduced dims are empty", o.op)
	}
	return o.to.Clone(), nil
}

func (o reduceOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	reduced, _ := tensor.ReducedAxes(in[0], o.to)
	var sigs []Signature
	for a, r := range reduced {
		if !r {
			sigs = append(sigs, Signature{In: []SBP{S(a)}, Out: S(a + len(o.to) - len(in[0]))})
		}
	}
	for a, r := range reduced {
		if r {
			sigs = append(sigs, Signature{In: []SBP{S(a)}, Out: P(o.op)})
		}
	}
	return append(sigs, Signature{In: []SBP{B}, Out: B}, Signature{In: []SBP{P(o.op)}, Out: P(o.op)})
}

func (o reduceOp) why(in []tensor.Shape, sbps []SBP) string {
	if s := sbps[0]; s.Kind == Partial && s.Op != o.op {
		return fmt.Sprintf("the %v of a %v is not the combination of each part's %v", o.op, s, o.op)
	}
	return ""
}

func (o reduceOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{ReduceTo: out.Clone(), OutStride: tensor.ContiguousStrides(out)}
}

func (o reduceOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	if in[0].NumElements() == 0 && o.op != tensor.Sum {
		return filled(in[0].DType(), out, identity(in[0].DType(), o.op))
	}
	return be.Reduce(o.op, in[0], out)
}
