package tensor

import (
	"fmt"
	"strings"
)

// BroadcastShapes returns the NumPy broadcast of shapes: align them on the
// right; in each dim the sizes must be equal or 1, and the result takes the
// size that is not 1 (a missing dim counts as 1).
func BroadcastShapes(shapes ...Shape) (Shape, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make(Shape, rank)
	for d := range out {
		out[d] = 1
	}
	for k, s := range shapes {
		lead := rank - len(s)
		for d, n := range s {
			o := &out[lead+d]
			switch {
			case n == *o || n == 1:
			case *o == 1:
				*o = n
			default:
				return nil, newError(ErrShape, "broadcast "+formatShapes(shapes),
					"dim %d (counted from the right: %d) of operand %d has size %d, which cannot broadcast with %d",
					lead+d, rank-lead-d, k, n, *o)
			}
		}
	}
	return out, nil
}

func formatShapes(shapes []Shape) string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = s.String()
	}
	return strings.Join(parts, " and ")
}

// ReducedAxes returns, for each dim of in, whether reducing in to the shape
// to sums (or maxes, mins) over it. to must broadcast to in: aligned on the
// right, each of its dims equals in's or is 1, and in's extra leading dims
// are reduced. A target of more dims than in is refused, as NumPy and
// PyTorch (sum_to_size) refuse it: a reduction never adds dims.
func ReducedAxes(in, to Shape) ([]bool, error) {
	op := fmt.Sprintf("reduce %v to %v", in, to)
	if len(to) > len(in) {
		return nil, newError(ErrShape, op, "the target has %d dims but the input only %d: a reduction cannot add dims (the target must broadcast to the input, as for PyTorch's sum_to_size)", len(to), len(in))
	}
	lead := len(in) - len(to)
	reduced := make([]bool, len(in))
	for d, n := range in {
		if d < lead {
			reduced[d] = true
			continue
		}
		switch t := to[d-lead]; {
		case t == n:
		case t == 1:
			reduced[d] = true
		default:
			return nil, newError(ErrShape, op, "dim %d has size %d, so the target must be %d or 1 there, not %d", d, n, n, t)
		}
	}
	return reduced, nil
}

// ReducePattern is the MXNet/TVM normal form of a broadcast reduction: drop
// size-1 dims and merge each run of neighbouring reduced (or kept) dims into
// one dim. The flags then alternate, so a rank-n pattern is fixed by n and
// whether it starts reduced: 2·n kernels cover every case instead of 2^n.
type ReducePattern struct {
	Shape   Shape  // merged input shape
	Reduced []bool // alternating flags, one per merged dim
}

// MergeReduceAxes returns the ReducePattern of reducing shape over the dims
// flagged in reduced (as ReducedAxes returns them).
func MergeReduceAxes(shape Shape, reduced []bool) ReducePattern {
	p := ReducePattern{Shape: Shape{}, Reduced: []bool{}}
	if n, _ := shape.NumElements(); n == 0 {
		return ReducePattern{Shape: Shape{0}, Reduced: []bool{false}}
	}
	for d, n := range shape {
		if n == 1 {
			continue
		}
		if k := len(p.Shape) - 1; k >= 0 && p.Reduced[k] == reduced[d] {
			p.Shape[k] *= n
			continue
		}
		p.Shape = append(p.Shape, n)
		p.Reduced = append(p.Reduced, reduced[d])
	}
	return p
}

// Bits spells the pattern as MXNet does: one digit per merged dim, 1 for
// reduced, e.g. "101".
func (p ReducePattern) Bits() string { return axisBits(p.Reduced) }

func axisBits(flags []bool) string {
	b := make([]byte, len(flags))
	for i, f := range flags {
		b[i] = '0'
		if f {
			b[i] = '1'
		}
	}
	return string(b)
}

// AxisBits spells per-dim reduce flags as a bit string, 1 for reduced.
func AxisBits(reduced []bool) string { return axisBits(reduced) }
