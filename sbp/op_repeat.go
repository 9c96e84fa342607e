package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type repeatOp struct{ times []int }

// Repeat is tensor repeat (PyTorch's repeat, NumPy's tile) on a global
// tensor. With lead = len(times) - len(I) new leading dims:
//
//	S(a) -> S(lead+a)   for every axis a with times[lead+a] = 1
//	B    -> S(d)        for every output dim d that only holds copies
//	                    (a new dim, or an axis of size 1)
//	B    -> B
//	P(x) -> P(x)        a copy commutes with sum, max and min
//
// An axis repeated more than once cannot stay split: the copies of a shard
// are not a shard of the copies. The physical rewrite gives each device the
// repeat counts that turn its input shard into its output shard.
func Repeat(times []int) Op { return repeatOp{times: append([]int{}, times...)} }

func (repeatOp) Name() string     { return "repeat" }
func (o repeatOp) String() string { return fmt.Sprintf("repeat by %v", o.times) }
func (repeatOp) Arity() int       { return 1 }

func (o repeatOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	plan, err := tensor.PlanRepeat(in[0], o.times)
	if err != nil {
		return nil, err
	}
	return plan.OutShape, nil
}

func (o repeatOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	lead := len(o.times) - len(in[0])
	var sigs []Signature
	for d, t := range o.times {
		if d >= lead && t == 1 {
			sigs = append(sigs, Signature{In: []SBP{S(d - lead)}, Out: S(d)})
		}
	}
	for d, t := range o.times {
		if d < lead || in[0][d-lead] == 1 && t != 1 {
			sigs = append(sigs, Signature{In: []SBP{B}, Out: S(d)})
		}
	}
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B})
	return append(sigs, partialsThrough()...)
}

func (o repeatOp) why(in []tensor.Shape, sbps []SBP) string {
	if sbps[0].Kind != Split {
		return ""
	}
	a := sbps[0].Axis
	d := a + len(o.times) - len(in[0])
	return fmt.Sprintf("axis %d is repeated %d times; the copies of a shard are not a shard of the copies, so only axes repeated once stay split", a, o.times[d])
}

// Args returns the counts that tile a shard of shape in into one of shape
// out: times[d] = out[d] / in[d] on the aligned dims (1 where the shard is
// empty, as 0·t = 0 for every t).
func (o repeatOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	lead := len(out) - len(in[0])
	times := make([]int, len(out))
	for d := range out {
		have := 1
		if d >= lead {
			have = in[0][d-lead]
		}
		times[d] = 1
		if have > 0 {
			times[d] = out[d] / have
		}
	}
	return Args{RepeatTimes: times, OutStride: tensor.ContiguousStrides(out)}
}

func (o repeatOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return be.Repeat(in[0], o.Args([]tensor.Shape{in[0].Shape()}, out).RepeatTimes)
}

func init() {
	registerOp(&OpSpec{
		Name:  "repeat",
		Grad:  gradRepeat,
		Words: []OpWord{intsWord("repeat", "X TIMES", "repeat takes a name and TIMES: repeat X TIMES", "repeat times", 180, Repeat, func(p OpParams) []int { return p.Times })},
		Global: func(_ string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.repeat%s", x[0], pyArgs(p.Times))
		},
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s.repeat(%s)", x[0], each(func(r RankPlan) []int { return r.RepeatTimes }))
		},
	})
}

// gradRepeat is repeat's backward: the tiles summed (RepeatGrad). OneFlow
// has no repeat op: its repeat is a reshape, an expand and a reshape, so
// its backward is a reshape, expand's reduce_sum and a reshape, which
// RepeatGrad runs as one op (its list for greedy is that chain's).
func gradRepeat(b Backward, c GradCall) (string, error) {
	return b.Add(c.Name, RepeatGrad(Params(c.Op).Times, b.Shape(c.X())), c.Why+": repeat's backward sums the tiles", c.Dy)
}
