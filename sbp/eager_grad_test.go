package sbp

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// TestEagerListsOfGradientOps: the lists greedy sees for the backward's
// ops, OneFlow's own GetSbp as written in its sources at 25c8978c
// (docs/planner-sources.md §2b), transcribed here by hand, apart from
// the ops' oneflow() methods, one builder call a signature, in the
// source's order, with the all-B signature Operator::GetSbpSignaturesIf
// appends last:
//
//	broadcast_like_op.cpp   per axis i of like: reduced, B x S(i) -> S(i);
//	                        kept, S(i - reduced before, when x's rank is
//	                        lower) x S(i) -> S(i); then P x P -> P,
//	                        P x B -> P, B x P -> B
//	reduce_like_ops.cpp     reduce_sum_like, per axis i of x: size 1,
//	                        nothing; reduced, S(i) x B -> P, S(i) x P -> P;
//	                        kept, S(i) x S(i') -> S(i') (i' = i with
//	                        keep_dims, else i - reduced so far); then
//	                        B x P -> B
//	matmul_op.cpp           MatmulOp with transpose_a/b: S(m) x B -> S(0),
//	                        B x S(n) -> S(1), S(k_a) x S(k_b) -> P,
//	                        P x B -> P, B x P -> P
//	                        BroadcastMatmulGradBOp: S(i) x S(i) -> P for
//	                        each axis but the last, S(last) x B -> S(0),
//	                        B x S(last) -> S(1)
//	math_unary_elementwise_op.cpp, tanh_op.cpp: the *_grad ops'
//	                        SplitForEachAxis, S(i) x S(i) -> S(i)
//	relu_op.cpp             ReluGradOp: S(i) x S(i) -> S(i) per axis
//	softmax_op.cpp          SoftmaxGradOp: S(i) x S(i) -> S(i) for every
//	                        axis but the softmax's (OneFlow's last)
//	gather_op.cpp           GatherOp (the forward, at axis 0; OneFlow's
//	                        arguments in, indices, ours table, ids): per
//	                        axis i of indices, B x S(i) -> S(i); per axis
//	                        j of in, S(0) x B -> P, S(j) x B -> S(j + k − 1)
//	unsorted_segment_sum_op.cpp  UnsortedSegmentSumLikeOp (data, segment_ids,
//	                        like), axis 0: per axis i of segment_ids,
//	                        S(i) x S(i) x B -> P and S(i) x S(i) x P -> P;
//	                        per axis i of data past them, S(i) x B x
//	                        S(i − k + 1) -> S(i − k + 1); P x B x B -> P,
//	                        P x B x P -> P, B x B x S(0) -> S(0)
func TestEagerListsOfGradientOps(t *testing.T) {
	const allB = "B x B -> B"
	for _, c := range []struct {
		op     Op
		shapes []tensor.Shape
		want   []string
	}{
		// a reduction to [1,3] of [4,3], its gradient broadcast back
		{BroadcastLike(tensor.Shape{4, 3}), []tensor.Shape{{1, 3}, {4, 3}},
			[]string{"B x S(0) -> S(0)", "S(1) x S(1) -> S(1)", "P(sum) x P(sum) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> B", allB}},
		{BroadcastLike(tensor.Shape{4, 3}), []tensor.Shape{{4, 1}, {4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "B x S(1) -> S(1)", "P(sum) x P(sum) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> B", allB}},
		{BroadcastLike(tensor.Shape{4, 3}), []tensor.Shape{{1, 1}, {4, 3}},
			[]string{"B x S(0) -> S(0)", "B x S(1) -> S(1)", "P(sum) x P(sum) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> B", allB}},
		// x of a lower rank: like's axis 1 is x's axis 0
		{BroadcastLike(tensor.Shape{4, 3}), []tensor.Shape{{3}, {4, 3}},
			[]string{"B x S(0) -> S(0)", "S(0) x S(1) -> S(1)", "P(sum) x P(sum) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> B", allB}},
		{ReduceSumLike(tensor.Shape{1, 3}), []tensor.Shape{{4, 3}, {1, 3}},
			[]string{"S(0) x B -> P(sum)", "S(0) x P(sum) -> P(sum)", "S(1) x S(1) -> S(1)", "B x P(sum) -> B", allB}},
		// a size-1 axis lists nothing
		{ReduceSumLike(tensor.Shape{1, 1, 3}), []tensor.Shape{{4, 1, 3}, {1, 1, 3}},
			[]string{"S(0) x B -> P(sum)", "S(0) x P(sum) -> P(sum)", "S(2) x S(2) -> S(2)", "B x P(sum) -> B", allB}},
		// like of a lower rank (a broadcast operand's gradient)
		{ReduceSumLike(tensor.Shape{3}), []tensor.Shape{{4, 3}, {3}},
			[]string{"S(0) x B -> P(sum)", "S(0) x P(sum) -> P(sum)", "S(1) x S(0) -> S(0)", "B x P(sum) -> B", allB}},
		// dy·bᵀ: a [4,5] (dy), b [3,5]: m 0, k_a 1, k_b 1, n 0
		{MatmulT(false, true), []tensor.Shape{{4, 5}, {3, 5}},
			[]string{"S(0) x B -> S(0)", "B x S(0) -> S(1)", "S(1) x S(1) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> P(sum)", allB}},
		// aᵀ·dy: a [4,3], dy [4,5]: m 1, k_a 0, k_b 0, n 1
		{MatmulT(true, false), []tensor.Shape{{4, 3}, {4, 5}},
			[]string{"S(1) x B -> S(0)", "B x S(1) -> S(1)", "S(0) x S(0) -> P(sum)", "P(sum) x B -> P(sum)", "B x P(sum) -> P(sum)", allB}},
		// (b, m, k) and (b, m, n) to (k, n)
		{BroadcastMatmulGradB(), []tensor.Shape{{2, 4, 3}, {2, 4, 5}},
			[]string{"S(0) x S(0) -> P(sum)", "S(1) x S(1) -> P(sum)", "S(2) x B -> S(0)", "B x S(2) -> S(1)", allB}},
		{UnaryGrad(tensor.Exp), []tensor.Shape{{4, 3}, {4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", allB}},
		{UnaryGrad(tensor.Tanh), []tensor.Shape{{2, 4, 3}, {2, 4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", "S(2) x S(2) -> S(2)", allB}},
		{UnaryGrad(tensor.Relu), []tensor.Shape{{4, 3}, {4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", allB}},
		{SoftmaxGrad(-1), []tensor.Shape{{2, 4, 3}, {2, 4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", allB}},
		{SoftmaxGrad(1), []tensor.Shape{{2, 4, 3}, {2, 4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(2) x S(2) -> S(2)", allB}},
		{UnaryGrad(tensor.Erf), []tensor.Shape{{4, 3}, {4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", allB}},
		{UnaryGrad(tensor.Square), []tensor.Shape{{4, 3}, {4, 3}},
			[]string{"S(0) x S(0) -> S(0)", "S(1) x S(1) -> S(1)", allB}},
		// a table [10, 4] looked up by ids [2, 3]: k = 2
		{Gather(), []tensor.Shape{{10, 4}, {2, 3}},
			[]string{"B x S(0) -> S(0)", "B x S(1) -> S(1)", "S(0) x B -> P(sum)", "S(1) x B -> S(2)", allB}},
		// its backward: dy [2, 3, 4], ids [2, 3], like [10, 4]
		{UnsortedSegmentSumLike(), []tensor.Shape{{2, 3, 4}, {2, 3}, {10, 4}},
			[]string{"S(0) x S(0) x B -> P(sum)", "S(0) x S(0) x P(sum) -> P(sum)", "S(1) x S(1) x B -> P(sum)", "S(1) x S(1) x P(sum) -> P(sum)",
				"S(2) x B x S(1) -> S(1)", "P(sum) x B x B -> P(sum)", "P(sum) x B x P(sum) -> P(sum)", "B x B x S(0) -> S(0)", "B x B x B -> B"}},
	} {
		var got []string
		for _, s := range EagerSignatures(c.op, c.shapes) {
			got = append(got, s.String())
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%v %v: greedy's list\n  %s\nOneFlow's\n  %s", c.op, c.shapes, strings.Join(got, "; "), strings.Join(c.want, "; "))
		}
	}
}
