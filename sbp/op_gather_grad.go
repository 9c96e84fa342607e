package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type unsortedSegmentSumLikeOp struct{}

// UnsortedSegmentSumLike is gather's backward, OneFlow's
// unsorted_segment_sum_like(data, segment_ids, like) at axis 0
// (tensor.Backend.ScatterAdd; torch's embedding_dense_backward): dy
// [I…, C…] summed by id into like's shape [V, C…], like (the table) read
// for its shape alone:
//
//	out[v, c] = Σ over i with ids[i] = v of dy[i, c]
//
// Its signatures (k = ids' rank; the arguments dy, ids, like), each with
// like in any layout (it is not read):
//
//	S(i) x S(i) -> P(sum)        i < k: each device sums its own ids' rows
//	S(i) x B    -> S(i−k+1)      i ≥ k: a feature dim, split alike in out
//	P    x B    -> P(sum)        linear in dy
//	B    x B    -> S(0)          each device sums the rows it holds
//	B    x B    -> B
//
// OneFlow's list (unsorted_segment_sum_op.cpp,
// UnsortedSegmentSumLikeOp::GetSbp), for greedy, constrains like:
//
//	S(i) x S(i) x B    -> P     S(i) x S(i) x P -> P       i < k
//	S(i) x B    x S(i−k+1) -> S(i−k+1)                     i ≥ k
//	P    x B    x B    -> P     P x B x P -> P
//	B    x B    x S(0) -> S(0)
//
// then all B.
func UnsortedSegmentSumLike() Op { return unsortedSegmentSumLikeOp{} }

func (unsortedSegmentSumLikeOp) Name() string   { return "unsorted_segment_sum_like" }
func (unsortedSegmentSumLikeOp) String() string { return "unsorted_segment_sum_like" }
func (unsortedSegmentSumLikeOp) Arity() int     { return 3 }

func (o unsortedSegmentSumLikeOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	dy, ids, like := in[0], in[1], in[2]
	k := len(ids)
	if len(like) == 0 || len(dy) != k+len(like)-1 || !tensor.Shape(dy[:k]).Equal(ids) || !tensor.Shape(dy[k:]).Equal(like[1:]) {
		return nil, newError(ErrShape, describe(o, in), "dy must be the ids' shape %v then the table's after its rows %v, not %v", ids, like[min(1, len(like)):], dy)
	}
	return like.Clone(), nil
}

func (o unsortedSegmentSumLikeOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	k := len(in[1])
	var pairs []Signature // over dy and ids
	for i := range in[0] {
		if i < k {
			pairs = append(pairs, Signature{In: []SBP{S(i), S(i)}, Out: PSum})
		} else {
			pairs = append(pairs, Signature{In: []SBP{S(i), B}, Out: S(i - k + 1)})
		}
	}
	pairs = append(pairs, Signature{In: []SBP{PSum, B}, Out: PSum}, Signature{In: []SBP{B, B}, Out: S(0)}, Signature{In: []SBP{B, B}, Out: B})
	var sigs []Signature
	for _, p := range pairs {
		for _, l := range likeLayouts(len(in[2])) {
			sigs = append(sigs, Signature{In: []SBP{p.In[0], p.In[1], l}, Out: p.Out})
		}
	}
	return sigs
}

// oneflow is UnsortedSegmentSumLikeOp::GetSbp at axis 0, in its order.
func (o unsortedSegmentSumLikeOp) oneflow(in []tensor.Shape) []Signature {
	k := len(in[1])
	var sigs []Signature
	for i := range k {
		sigs = append(sigs, Signature{In: []SBP{S(i), S(i), B}, Out: PSum}, Signature{In: []SBP{S(i), S(i), PSum}, Out: PSum})
	}
	for i := k; i < len(in[0]); i++ {
		sigs = append(sigs, Signature{In: []SBP{S(i), B, S(i - k + 1)}, Out: S(i - k + 1)})
	}
	return append(sigs,
		Signature{In: []SBP{PSum, B, B}, Out: PSum},
		Signature{In: []SBP{PSum, B, PSum}, Out: PSum},
		Signature{In: []SBP{B, B, S(0)}, Out: S(0)})
}

func (o unsortedSegmentSumLikeOp) why(in []tensor.Shape, sbps []SBP) string {
	dy, ids := sbps[0], sbps[1]
	switch {
	case ids.Kind == Partial:
		return "ids are row numbers: a sum of parts of ids names no row; they are split or whole"
	case dy.Kind == Split && dy.Axis < len(in[1]) && ids != dy:
		return fmt.Sprintf("each row of dy goes with its id: dy %v splits the ids' dims, so the ids split alike", dy)
	case ids.Kind == Split && dy != ids:
		return fmt.Sprintf("each id goes with its row of dy: ids %v need dy split alike", ids)
	}
	return ""
}

func (o unsortedSegmentSumLikeOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local sums the device's dy by its ids into all the table's rows (a
// single device's run).
func (o unsortedSegmentSumLikeOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	if err := idsWithin(in[1], out[0]); err != nil {
		return tensor.Tensor{}, err
	}
	return be.ScatterAdd(in[0], in[1], 0, out[0])
}

// localShards sums the device's dy by its ids into the rows of its
// output shard, Lo[0] … Hi[0]−1 of the table's.
func (o unsortedSegmentSumLikeOp) localShards(be tensor.Backend, in []tensor.Tensor, _ []Shard, logical []tensor.Shape, out Shard) (tensor.Tensor, error) {
	if err := idsWithin(in[1], logical[2][0]); err != nil {
		return tensor.Tensor{}, err
	}
	return be.ScatterAdd(in[0], in[1], out.Lo[0], out.Shape[0])
}

func init() {
	registerOp(&OpSpec{
		Name: "unsorted_segment_sum_like", // the backward's only
		Global: func(lib string, _ OpParams, x []string, in []tensor.Shape) string {
			if lib == "flow" {
				return fmt.Sprintf("flow._C.unsorted_segment_sum_like(%s, %s, %s, 0)", x[0], x[1], x[2])
			}
			return fmt.Sprintf("torch.zeros_like(%s).index_add_(0, %s.reshape(-1).long(), %s.reshape(-1, *%s.shape[1:]))", x[2], x[1], x[0], x[2])
		},
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("scatter_rows(%s, %s, %s)", x[0], x[1], each(func(r RankPlan) []int { return []int{r.OutRange[0][0], r.OutRange[0][1]} }))
		},
	})
}

func (unsortedSegmentSumLikeOp) idsArg() int { return 1 }

func (unsortedSegmentSumLikeOp) likeArg() int { return 2 }
