package sbp

import (
	"fmt"
	"strconv"

	"github.com/stridelab/stridelab/tensor"
)

type sliceOp struct{ dim, start, stop int }

// Slice keeps the elements start … stop−1 along one dim (torch's
// x.narrow(dim, start, stop − start), x[..., start:stop]; OneFlow's slice
// with step 1): a negative dim counts from the end, resolved against the
// input's rank. Its signatures:
//
//	S(a) -> S(a)      every axis a along which the slice is whole
//	S(d) -> P(sum)    d, sliced: each device keeps what of start … stop−1
//	                  it holds, in place, and 0 elsewhere, so the parts
//	                  add up to the slice (no device needs another's)
//	B    -> B
//	P    -> P         a selection: sum, max and min of the parts alike
//
// A split along the sliced dim does not stay a split (the devices' parts
// of the slice are not even shares of it), so it comes out P(sum), which
// a reader that needs the slice whole or split boxes. OneFlow's list
// (slice_op.cpp, SliceOp::GetSbp), for greedy: per axis, S(a) -> S(a)
// where the slice is whole, else S(a) -> P(sum); then P(sum) -> P(sum).
func Slice(dim, start, stop int) Op { return sliceOp{dim: dim, start: start, stop: stop} }

func (sliceOp) Name() string { return "slice" }
func (o sliceOp) String() string {
	return fmt.Sprintf("slice %d … %d along %d", o.start, o.stop-1, o.dim)
}
func (sliceOp) Arity() int { return 1 }

// at resolves the dim against a rank (resolveDim).
func (o sliceOp) at(rank int) (int, bool) { return resolveDim(o.dim, rank) }

func (o sliceOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	d, ok := o.at(len(in[0]))
	switch {
	case len(in[0]) == 0:
		return nil, newError(ErrShape, describe(o, in), "a scalar has no dim to slice")
	case !ok:
		return nil, newError(ErrShape, describe(o, in), "the tensor has %d dims, so the dim is %d to %d (negative counts from the end), not %d", len(in[0]), -len(in[0]), len(in[0])-1, o.dim)
	case o.start < 0 || o.stop > in[0][d] || o.start >= o.stop:
		return nil, newError(ErrShape, describe(o, in), "dim %d has %d elements: the slice is start … stop−1 with 0 ≤ start < stop ≤ %d, not %d … %d", d, in[0][d], in[0][d], o.start, o.stop-1)
	}
	out := in[0].Clone()
	out[d] = o.stop - o.start
	return out, nil
}

// whole says whether the slice keeps all of dim d of shape.
func (o sliceOp) whole(shape tensor.Shape, d int) bool { return o.start == 0 && o.stop == shape[d] }

func (o sliceOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := append(o.oneflow(in), Signature{In: []SBP{B}, Out: B})
	return append(sigs, Signature{In: []SBP{P(tensor.MaxAll)}, Out: P(tensor.MaxAll)}, Signature{In: []SBP{P(tensor.MinAll)}, Out: P(tensor.MinAll)})
}

// oneflow is SliceOp::GetSbp, in its order.
func (o sliceOp) oneflow(in []tensor.Shape) []Signature {
	d, ok := o.at(len(in[0]))
	if !ok {
		return nil
	}
	var sigs []Signature
	for a := range in[0] {
		if a != d || o.whole(in[0], d) {
			sigs = append(sigs, Signature{In: []SBP{S(a)}, Out: S(a)})
		} else {
			sigs = append(sigs, Signature{In: []SBP{S(a)}, Out: PSum})
		}
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o sliceOp) why(in []tensor.Shape, sbps []SBP) string {
	if d, _ := o.at(len(in[0])); sbps[0] == S(d) {
		return fmt.Sprintf("a split along the sliced dim %d leaves the devices uneven parts of the slice: it comes out P(sum), each device's part in place and 0 elsewhere", d)
	}
	return ""
}

func (o sliceOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local slices a whole tensor (one device's run).
func (o sliceOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	d, _ := o.at(in[0].Layout().Rank())
	v, err := in[0].Narrow(d, o.start, o.stop)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}

// localShards slices a device's shard: of start … stop−1 along d it holds
// what its shard's range Lo … Hi−1 overlaps, which lands at that place of
// its output shard; the rest of the output shard is 0 (P(sum)).
func (o sliceOp) localShards(be tensor.Backend, in []tensor.Tensor, shards []Shard, _ []tensor.Shape, out Shard) (tensor.Tensor, error) {
	d, _ := o.at(in[0].Layout().Rank())
	lo, hi := shards[0].Lo[d], shards[0].Hi[d]
	a, b := max(o.start, lo), min(o.stop, hi)
	if a >= b {
		return tensor.Zeros(in[0].DType(), out.Shape)
	}
	v, err := in[0].Narrow(d, a-lo, b-lo)
	if err != nil {
		return tensor.Tensor{}, err
	}
	piece, err := be.Materialize(v)
	if err != nil {
		return tensor.Tensor{}, err
	}
	before := a - o.start - out.Lo[d]
	return padAlong(piece, d, before, out.Shape[d]-before-(b-a))
}

// padAlong puts before zeros ahead of t along dim d and after zeros
// behind it (t released once copied, when there are any).
func padAlong(t tensor.Tensor, d, before, after int) (tensor.Tensor, error) {
	if before == 0 && after == 0 {
		return t, nil
	}
	defer t.Release()
	var parts []tensor.Tensor
	for i, n := range []int{before, -1, after} {
		switch {
		case i == 1:
			parts = append(parts, t)
		case n > 0:
			sh := t.Shape().Clone()
			sh[d] = n
			z, err := tensor.Zeros(t.DType(), sh)
			if err != nil {
				return tensor.Tensor{}, err
			}
			defer z.Release()
			parts = append(parts, z)
		}
	}
	return tensor.Concat(d, parts...)
}

func init() {
	const usage = "slice takes a name, a dim, a start and a stop: slice X -1 0 64 (elements start … stop−1; a negative dim counts from the end)"
	registerOp(&OpSpec{
		Name: "slice",
		Grad: gradSlice,
		Words: []OpWord{{Word: "slice", Usage: "X -1 0 64", Order: 205,
			Build: func(c *WordCall) (Op, error) {
				if len(c.Args) != 4 {
					return nil, UsageError(usage)
				}
				var n [3]int
				for i, w := range c.Args[1:] {
					v, err := strconv.Atoi(w)
					if err != nil {
						return nil, usagef("slice's %s %q is not an integer: %s", []string{"dim", "start", "stop"}[i], w, usage)
					}
					n[i] = v
				}
				if _, err := c.Input(c.Args[0]); err != nil {
					return nil, err
				}
				return Slice(n[0], n[1], n[2]), nil
			},
			Spell: func(p OpParams) (string, bool) {
				return fmt.Sprintf(" %d %d %d", p.Axis, p.Start, p.Stop), true
			},
		}},
		Global: func(lib string, p OpParams, x []string, in []tensor.Shape) string {
			d := p.Axis
			if d < 0 {
				d += len(in[0])
			}
			return fmt.Sprintf("%s.narrow(%d, %d, %d)", x[0], d, p.Start, p.Stop-p.Start)
		},
		Local: func(p OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("slice_part(%s, %d, %d, %d, %s)", x[0], p.Axis, p.Start, p.Stop, each(func(r RankPlan) []int {
				d := p.Axis
				if d < 0 {
					d += len(r.InRange)
				}
				return []int{r.InRange[d][0], r.InRange[d][1], r.OutRange[d][0], r.OutRange[d][1]}
			}))
		},
	})
}

// gradSlice is slice's backward as OneFlow writes it (slice.cpp):
// slice_grad, dy put back in place in zeros of x's shape.
func gradSlice(b Backward, c GradCall) (string, error) {
	o := c.Op.(sliceOp)
	x := b.Shape(c.X())
	d, _ := o.at(len(x))
	return b.Add(c.Name, SliceGrad(x, d, o.start, o.stop), fmt.Sprintf("%s = grad in place of elements %d … %d along %d, 0 elsewhere (slice_grad)", c.Why, o.start, o.stop-1, d), c.Dy)
}
