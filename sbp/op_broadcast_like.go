package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type broadcastLikeOp struct{ to tensor.Shape }

// BroadcastLike is OneFlow's broadcast_like(x, like): x, a reduction's
// result, broadcast back to like's shape to (the reduction's input),
// like read for its shape alone. It is reduce_sum's gradient in OneFlow
// (reduce_sum_grad: broadcast_like(dy, x)). Its signatures are expand's
// on x, each with like in any layout a reduction's input can have (B,
// S(i), P(sum)): like's values are never read, so its layout only has to
// be one the planner can give it, and exact searches them all. OneFlow's
// list (broadcast_like_op.cpp), for greedy, per axis i of like:
//
//	B    x S(i) -> S(i)   i reduced (x broadcasts along it)
//	S(j) x S(i) -> S(i)   i kept, j = x's axis aligned with i
//	P    x P    -> P
//	P    x B    -> P
//	B    x P    -> B
//
// and the all-B signature after.
func BroadcastLike(to tensor.Shape) Op { return broadcastLikeOp{to: to.Clone()} }

func (broadcastLikeOp) Name() string     { return "broadcast_like" }
func (o broadcastLikeOp) String() string { return fmt.Sprintf("broadcast_like to %v", o.to) }
func (broadcastLikeOp) Arity() int       { return 2 }

func (o broadcastLikeOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if !in[1].Equal(o.to) {
		return nil, newError(ErrShape, describe(o, in), "like has shape %v, not the %v the op broadcasts to", in[1], o.to)
	}
	if _, err := tensor.ReducedAxes(o.to, in[0]); err != nil {
		return nil, newError(ErrShape, describe(o, in), "%v does not broadcast to %v: %v", in[0], o.to, err)
	}
	return o.to.Clone(), nil
}

// likeLayouts is every layout a reduction's input of rank r can have,
// for an op that reads only its shape: B, S(i) for each i, P(sum).
func likeLayouts(r int) []SBP {
	out := []SBP{B}
	for i := range r {
		out = append(out, S(i))
	}
	return append(out, PSum)
}

func (o broadcastLikeOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	var sigs []Signature
	for _, e := range Expand(o.to).Signatures(in[:1]) {
		if e.Out.Kind == Partial && e.Out != PSum {
			continue // a like-op of a reduction's result: its gradient is P(sum) at most
		}
		for _, l := range likeLayouts(len(o.to)) {
			sigs = append(sigs, Signature{In: []SBP{e.In[0], l}, Out: e.Out})
		}
	}
	return sigs
}

func (o broadcastLikeOp) oneflow(in []tensor.Shape) []Signature {
	reduced, err := tensor.ReducedAxes(o.to, in[0])
	if err != nil {
		return nil
	}
	lead := len(o.to) - len(in[0])
	var sigs []Signature
	for i, r := range reduced {
		if r {
			sigs = append(sigs, Signature{In: []SBP{B, S(i)}, Out: S(i)})
		} else {
			sigs = append(sigs, Signature{In: []SBP{S(i - lead), S(i)}, Out: S(i)})
		}
	}
	return append(sigs, Signature{In: []SBP{PSum, PSum}, Out: PSum}, Signature{In: []SBP{PSum, B}, Out: PSum}, Signature{In: []SBP{B, PSum}, Out: B})
}

func (o broadcastLikeOp) why(in []tensor.Shape, sbps []SBP) string {
	return Expand(o.to).why(in[:1], sbps[:1])
}

func (o broadcastLikeOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Expand(o.to).Args(in[:1], out)
}

// Local expands the device's x to its output shard (like is not read).
func (o broadcastLikeOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return tensor.Expand(be, in[0], out)
}

func init() {
	registerOp(&OpSpec{
		Name: "broadcast_like", // the backward's only
		Global: func(lib string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.expand%s", x[0], pyArgs(p.To))
		},
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s.expand(%s).contiguous()", x[0], each(func(r RankPlan) []int { return r.ExpandSize }))
		},
	})
}

func (broadcastLikeOp) likeArg() int { return 1 }
