package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type sliceGradOp struct {
	like             tensor.Shape
	dim, start, stop int
}

// SliceGrad is slice's backward, OneFlow's slice_grad: dy put in place,
// elements start … stop−1 along dim d, in zeros of the sliced tensor's
// shape like:
//
//	dx[…, i, …] = dy[…, i − start, …]  for start ≤ i < stop, else 0
//
// Its signatures: S(a) -> S(a) along every axis a but d (where the slice
// is whole), B -> B, and P -> P (the zeros are every partial's part).
// OneFlow's list (SliceGradOp::GetSbp): S(a) -> S(a) where the slice is
// whole, then P(sum) -> P(sum), then B -> B.
func SliceGrad(like tensor.Shape, d, start, stop int) Op {
	return sliceGradOp{like: like.Clone(), dim: d, start: start, stop: stop}
}

func (sliceGradOp) Name() string { return "slice_grad" }
func (o sliceGradOp) String() string {
	return fmt.Sprintf("slice_grad into %v at %d … %d along %d", o.like, o.start, o.stop-1, o.dim)
}
func (sliceGradOp) Arity() int { return 1 }

func (o sliceGradOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	want, err := Slice(o.dim, o.start, o.stop).OutShape([]tensor.Shape{o.like})
	if err != nil {
		return nil, err
	}
	if !in[0].Equal(want) {
		return nil, newError(ErrShape, describe(o, in), "dy is %v, but the slice of %v is %v", in[0], o.like, want)
	}
	return o.like.Clone(), nil
}

func (o sliceGradOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := o.oneflow(in)
	return append(sigs, Signature{In: []SBP{B}, Out: B}, Signature{In: []SBP{P(tensor.MaxAll)}, Out: P(tensor.MaxAll)}, Signature{In: []SBP{P(tensor.MinAll)}, Out: P(tensor.MinAll)})
}

func (o sliceGradOp) oneflow(in []tensor.Shape) []Signature {
	var sigs []Signature
	for a := range o.like {
		if a != o.dim || o.start == 0 && o.stop == o.like[a] {
			sigs = append(sigs, Signature{In: []SBP{S(a)}, Out: S(a)})
		}
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o sliceGradOp) why(in []tensor.Shape, sbps []SBP) string {
	if sbps[0] == S(o.dim) {
		return fmt.Sprintf("dy split along the sliced dim %d does not land in even shares of dx", o.dim)
	}
	return ""
}

func (o sliceGradOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local puts the device's dy between zeros along the dim (never split
// there).
func (o sliceGradOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	dy, err := be.Materialize(in[0])
	if err != nil {
		return tensor.Tensor{}, err
	}
	return padAlong(dy, o.dim, o.start, o.like[o.dim]-o.stop)
}

func init() {
	registerOp(&OpSpec{
		Name: "slice_grad", // the backward's only
		Global: func(lib string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.nn.functional.pad(%s, %s)", lib, x[0], padSpell(len(p.To), p.Axis, p.Start, p.To[p.Axis]-p.Stop))
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("torch.nn.functional.pad(%s, %s)", x[0], padSpell(len(p.To), p.Axis, p.Start, p.To[p.Axis]-p.Stop))
		},
	})
}

// padSpell is torch's pad argument for before and after elements along
// dim d of a rank-r tensor: pairs from the last dim back.
func padSpell(r, d, before, after int) string {
	s := "("
	for a := r - 1; a >= d; a-- {
		if a == d {
			s += fmt.Sprintf("%d, %d", before, after)
		} else {
			s += "0, 0, "
		}
	}
	return s + ")"
}
