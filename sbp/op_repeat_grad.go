package sbp

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

type repeatGradOp struct {
	times []int
	in    tensor.Shape // the repeat's input shape: this op's output shape
}

// RepeatGrad is the backward of Repeat(times) on an input of shape
// inShape (tensor.RepeatBackward): its input has the repeat's output shape
// (inShape padded on the left to len(times) dims, times[d]·s[d]), and its
// output, of shape inShape, sums the tiles, out[j] = Σ over the copies of
// j. With lead = len(times) - len(inShape):
//
//	S(d)   -> S(d-lead)  for every dim d >= lead with times[d] = 1: an
//	                     untiled dim splits the grad and the sum alike
//	S(d)   -> P(sum)     for every dim d that only holds copies (a new
//	                     dim, or an axis of size 1), Repeat's B -> S(d)
//	                     turned around: each device sums its copies
//	B      -> B
//	P(sum) -> P(sum)     a sum of tiles is linear
//
// A tiled dim of size > 1 cannot stay split: a device's range of it cuts
// tiles apart. The physical rewrite gives each device the repeat counts
// its own input shard undoes (Args.RepeatTimes) and its output shard's
// shape (Args.ReduceTo).
func RepeatGrad(times []int, inShape tensor.Shape) Op {
	return repeatGradOp{times: slices.Clone(times), in: inShape.Clone()}
}

func (repeatGradOp) Name() string     { return "repeat_grad" }
func (o repeatGradOp) String() string { return fmt.Sprintf("sum the tiles of repeat by %v", o.times) }
func (repeatGradOp) Arity() int       { return 1 }

func (o repeatGradOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	plan, err := tensor.PlanRepeat(o.in, o.times)
	if err != nil {
		return nil, err
	}
	if !in[0].Equal(plan.OutShape) {
		return nil, newError(ErrShape, describe(o, in), "the grad of repeat %v by %v has the repeat's output shape %v, not %v", o.in, o.times, plan.OutShape, in[0])
	}
	return o.in.Clone(), nil
}

// lead is the number of new leading dims of the repeat.
func (o repeatGradOp) lead() int { return len(o.times) - len(o.in) }

// copies reports whether dim d of the input only holds copies: a new
// dim, or a tiled axis of size 1.
func (o repeatGradOp) copies(d int) bool {
	return d < o.lead() || o.in[d-o.lead()] == 1 && o.times[d] != 1
}

func (o repeatGradOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	var sigs []Signature
	for d, t := range o.times {
		if d >= o.lead() && t == 1 {
			sigs = append(sigs, Signature{In: []SBP{S(d)}, Out: S(d - o.lead())})
		}
	}
	for d := range o.times {
		if o.copies(d) {
			sigs = append(sigs, Signature{In: []SBP{S(d)}, Out: PSum})
		}
	}
	return append(sigs, Signature{In: []SBP{B}, Out: B}, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o repeatGradOp) why(in []tensor.Shape, sbps []SBP) string {
	switch s := sbps[0]; s.Kind {
	case Split:
		if s.Axis < o.lead() || s.Axis >= len(o.times) {
			return ""
		}
		return fmt.Sprintf("dim %d holds %d tiles of %d; a device's part of it would cut tiles apart, so only untiled dims (and dims of copies, to P(sum)) stay split", s.Axis, o.times[s.Axis], o.in[s.Axis-o.lead()])
	case Partial:
		return fmt.Sprintf("the sum of the tiles of a %v is not the %v of each part's sum; only P(sum) passes through", s, s.Op)
	}
	return ""
}

// Args returns the counts of the repeat whose output is a shard of shape
// in and whose input is one of shape out: times[d] = in[d] / out[d] on the
// aligned dims (1 where the output is empty, as t·0 = 0 for every t), and
// in[d] on the new leading dims.
func (o repeatGradOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	lead := len(in[0]) - len(out)
	times := make([]int, len(in[0]))
	for d := range in[0] {
		have := 1
		if d >= lead {
			have = out[d-lead]
		}
		times[d] = 1
		if have > 0 {
			times[d] = in[0][d] / have
		}
	}
	return Args{RepeatTimes: times, ReduceTo: out.Clone(), OutStride: tensor.ContiguousStrides(out)}
}

func (o repeatGradOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return tensor.RepeatBackward(be, in[0], out, o.Args([]tensor.Shape{in[0].Shape()}, out).RepeatTimes)
}

func init() {
	registerOp(&OpSpec{
		Name: "repeat_grad", // the backward's only
		Global: func(_ string, p OpParams, x []string, _ []tensor.Shape) string {
			return repeatGradCall(x[0], p.To, p.Times)
		},
		// each rank's input viewed as its repeat's expand, summed to the repeat's input
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			view := func(r RankPlan) []int { rep, _ := tensor.PlanRepeat(r.ReduceTo, r.RepeatTimes); return rep.ExpandSize }
			viewTo := func(r RankPlan) []int { rep, _ := tensor.PlanRepeat(r.ReduceTo, r.RepeatTimes); return rep.InReshape }
			return fmt.Sprintf("reduce_to(%s.reshape(%s), \"sum\", %s).reshape(%s)", x[0], each(view), each(viewTo), each(func(r RankPlan) []int { return r.ReduceTo }))
		},
	})
}

// repeatGradCall spells the backward of a repeat by times of an input
// of shape in (RepeatGrad) on x, the repeat's output: x viewed as the
// repeat's expand, summed over its copy dims, reshaped to in.
func repeatGradCall(x string, in tensor.Shape, times []int) string {
	plan, _ := tensor.PlanRepeat(in, times)
	var axes []int // the copy dims of the repeat's expand
	k, lead := 0, len(times)-len(in)
	for d, t := range times {
		switch {
		case d < lead || t != 1 && in[d-lead] == 1:
			axes = append(axes, k)
			k++
		case t == 1:
			k++
		default: // (t, s)
			axes = append(axes, k)
			k += 2
		}
	}
	if len(axes) == 0 {
		return fmt.Sprintf("%s.reshape(%s)", x, PyTuple(in))
	}
	return fmt.Sprintf("%s.reshape(%s).sum(dim=%s).reshape(%s)", x, PyTuple(plan.ExpandSize), PyTuple(axes), PyTuple(in))
}
