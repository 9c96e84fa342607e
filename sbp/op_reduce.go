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

func init() {
	// sum X 1,3,1; max X 1,3 and min X 1,3 where the second word is a
	// shape, not a tensor's name (max A B is the elementwise max).
	reduceWord := func(op tensor.ReduceOp, word string, order int) OpWord {
		w := OpWord{Word: word, Usage: "X 1,3,1", Order: order,
			Build: func(c *WordCall) (Op, error) {
				_, to, err := nameAndShape(c)
				if err != nil {
					return nil, err
				}
				return Reduce(op, to), nil
			},
			// (a max or min to a scalar has no words: its target would be empty)
			Spell: func(p OpParams) (string, bool) {
				return " " + p.To.Spell(), p.Reduce == op && (op == tensor.Sum || len(p.To) > 0)
			},
		}
		if op != tensor.Sum {
			w.Match = func(args []string, name func(string) bool) bool {
				return len(args) >= 2 && !name(args[1]) && looksLikeShape(args[1])
			}
		}
		return w
	}
	registerOp(&OpSpec{
		Name:  "reduce",
		Grad:  gradReduce,
		Words: []OpWord{reduceWord(tensor.Sum, "sum", 220), reduceWord(tensor.MaxAll, "max", 60), reduceWord(tensor.MinAll, "min", 70)},
		Global: func(_ string, p OpParams, x []string, in []tensor.Shape) string {
			fn := map[tensor.ReduceOp]string{tensor.Sum: "sum", tensor.MaxAll: "amax", tensor.MinAll: "amin"}[p.Reduce]
			return reduceCall(x[0], fn, in[0], p.To)
		},
		Local: func(p OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("reduce_to(%s, %q, %s)", x[0], p.Reduce.String(), each(func(r RankPlan) []int { return r.ReduceTo }))
		},
	})
}

// reduceCall spells the reduction fn (sum, amax, amin, mean) of x, of
// shape in, down to the shape to: over the reduced axes, kept, then
// reshaped to to.
func reduceCall(x, fn string, in, to tensor.Shape) string {
	reduced, _ := tensor.ReducedAxes(in, to)
	var axes []int
	for a, r := range reduced {
		if r {
			axes = append(axes, a)
		}
	}
	if len(axes) == 0 { // sum(dim=[]) would reduce every dim
		return fmt.Sprintf("%s.reshape%s", x, shapeArgs(to))
	}
	return fmt.Sprintf("%s.%s(dim=%s, keepdim=True).reshape%s", x, fn, PyTuple(axes), shapeArgs(to))
}

// gradReduce is a reduction's backward as OneFlow writes it
// (reduce_ops.cpp). Sum: broadcast_like(dy, x). Max and min: the cells
// that hold the extreme, the gradient split evenly among them:
//
//	m = eq(x, broadcast_like(y, x));  n = reduce_sum(m) to y's shape
//	dx = broadcast_like(dy / n, x) · m
func gradReduce(b Backward, c GradCall) (string, error) {
	x, y := c.X(), c.Out
	xs := b.Shape(x)
	if Params(c.Op).Reduce == tensor.Sum {
		return b.Add(c.Name, BroadcastLike(xs), c.Why+": sum's backward broadcasts grad back like "+x+" (broadcast_like)", c.Dy, x)
	}
	word := WordOf(c.Op)
	yb, err := b.Add("", BroadcastLike(xs), c.Why+": "+y+" broadcast like "+x, y, x)
	if err != nil {
		return "", err
	}
	m, err := b.Add("", Binary(tensor.Eq), c.Why+": the cells that hold the "+word, x, yb)
	if err != nil {
		return "", err
	}
	n, err := b.Add("", Reduce(tensor.Sum, b.Shape(y)), c.Why+": how many cells hold it", m)
	if err != nil {
		return "", err
	}
	q, err := b.Add("", Binary(tensor.Div), c.Why+": the gradient split among them", c.Dy, n)
	if err != nil {
		return "", err
	}
	qb, err := b.Add("", BroadcastLike(xs), c.Why+": broadcast like "+x, q, x)
	if err != nil {
		return "", err
	}
	return b.Add(c.Name, Binary(tensor.Mul), c.Why+" = eq(x, y) · grad / count", qb, m)
}
