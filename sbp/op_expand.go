package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type expandOp struct{ size []int }

// Expand is tensor.Layout.Expand on a global tensor. Its signatures, for
// an input of shape I expanded to O (lead = len(O) - len(I) new dims):
//
//	S(a) -> S(lead+a)   for every axis a that is kept (I[a] = O[lead+a])
//	B    -> S(d)        for every broadcast dim d of the output
//	B    -> B
//	P(x) -> P(x)        a copy commutes with sum, max and min
//
// A split axis is never broadcast: a device whose shard of a size-1 axis
// is empty could not expand it. The physical rewrite expands each shard to
// its output shard's shape.
func Expand(size []int) Op { return expandOp{size: append([]int{}, size...)} }

func (expandOp) Name() string     { return "expand" }
func (o expandOp) String() string { return fmt.Sprintf("expand to %v", tensor.Shape(o.size)) }
func (expandOp) Arity() int       { return 1 }

func (o expandOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	l, err := tensor.Contiguous(in[0])
	if err != nil {
		return nil, err
	}
	v, err := l.Expand(o.size)
	if err != nil {
		return nil, err
	}
	return v.Shape(), nil
}

// kept reports whether output dim d of an expand of in to out comes from
// an input axis of the same size.
func kept(in, out tensor.Shape, d int) bool {
	lead := len(out) - len(in)
	return d >= lead && in[d-lead] == out[d]
}

func (o expandOp) Signatures(in []tensor.Shape) []Signature {
	out, err := o.OutShape(in)
	if err != nil {
		return nil
	}
	lead := len(out) - len(in[0])
	var sigs []Signature
	for d := range out {
		if kept(in[0], out, d) {
			sigs = append(sigs, Signature{In: []SBP{S(d - lead)}, Out: S(d)})
		}
	}
	for d := range out {
		if !kept(in[0], out, d) {
			sigs = append(sigs, Signature{In: []SBP{B}, Out: S(d)})
		}
	}
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B})
	return append(sigs, partialsThrough()...)
}

func (o expandOp) why(in []tensor.Shape, sbps []SBP) string {
	out, err := o.OutShape(in)
	if err != nil || sbps[0].Kind != Split {
		return ""
	}
	a := sbps[0].Axis
	d := a + len(out) - len(in[0])
	return fmt.Sprintf("axis %d has size %d and is broadcast to %d; a split axis is never broadcast (to split the output along dim %d, give the input as B)", a, in[0][a], out[d], d)
}

func (o expandOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	l, _ := tensor.Contiguous(in[0])
	v, err := l.Expand(out)
	if err != nil {
		return Args{ExpandSize: out.Clone()}
	}
	return Args{ExpandSize: out.Clone(), OutStride: v.Strides()}
}

func (o expandOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return tensor.Expand(be, in[0], out)
}

func init() {
	registerOp(&OpSpec{
		Name:  "expand",
		Grad:  gradExpand,
		Words: []OpWord{intsWord("expand", "X SIZE", "expand takes a name and SIZE (-1 keeps a dim): expand X SIZE", "expand size", 170, Expand, func(p OpParams) []int { return p.Size })},
		Global: func(_ string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.expand%s", x[0], pyArgs(p.Size))
		},
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s.expand(%s).contiguous()", x[0], each(func(r RankPlan) []int { return r.ExpandSize }))
		},
	})
}

// gradExpand is expand's backward as OneFlow writes it (expand.cpp):
// reduce_sum of dy over the broadcast dims, to x's shape (the MXNet/TVM
// note's broadcast-reduce: merged runs, 2·n kernels cover every case).
func gradExpand(b Backward, c GradCall) (string, error) {
	return b.Add(c.Name, Reduce(tensor.Sum, b.Shape(c.X())), c.Why+": expand's backward sums over the broadcast dims (reduce_sum)", c.Dy)
}
