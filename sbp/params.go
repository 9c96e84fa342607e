package sbp

import (
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// OpParams are an op's own arguments, the ones its per-device rewrite
// (Args) leaves out: what an engine outside Go needs, beside PlanOp's
// per-device arguments, to run the op's Local on a device. Only the
// fields of the op's kind are set.
type OpParams struct {
	Name   string          // the op's word, as Op.Name
	Binary tensor.BinaryOp // add … eq: the elementwise op
	Unary  tensor.UnaryOp  // exp … step: the elementwise op
	Reduce tensor.ReduceOp // reduce: sum, max or min; mean: sum
	Factor float64         // scale: y = Factor·x
	Size   []int           // expand: the logical size (-1 keeps a dim)
	Times  []int           // repeat and repeat_grad: the repeat counts
	To     tensor.Shape    // reduce, mean, reduce_sum_like: the logical target; repeat_grad: the repeat's input shape; broadcast_like: like's shape
	Count  int             // mean: the input elements each output averages (every device divides by it)
	Perm   []int           // transpose, permute: y's dim k is x's dim Perm[k] (transpose's is nil: it swaps the last two dims)
	Shape  []int           // reshape: the target shape as given (one entry may be -1)
	Axis   int             // softmax, softmax_grad: the dim it normalises along; slice, cat: the dim it slices or joins (negative counts from the end, as written); slice_grad: that dim resolved
	Start  int             // slice, slice_grad: the first element kept along Axis
	Stop   int             // slice, slice_grad: one past the last
	TransA bool            // matmul_t: a's matrices transposed
	TransB bool            // matmul_t: b's matrices transposed
}

// Params returns op's own arguments. An op made outside this package
// gets only its Name.
func Params(op Op) OpParams {
	p := OpParams{Name: op.Name()}
	switch o := op.(type) {
	case binaryOp:
		p.Binary = o.op
	case unaryOp:
		p.Unary = o.op
	case reduceOp:
		p.Reduce, p.To = o.op, o.to.Clone()
	case meanOp:
		p.Reduce, p.To, p.Count = tensor.Sum, o.sum.to.Clone(), o.count()
	case softmaxOp:
		p.Axis = o.axis
	case scaleOp:
		p.Factor = o.c
	case permuteOp:
		p.Perm = slices.Clone(o.perm)
	case reshapeOp:
		p.Shape = slices.Clone(o.shape)
	case expandOp:
		p.Size = append([]int{}, o.size...)
	case repeatOp:
		p.Times = append([]int{}, o.times...)
	case repeatGradOp:
		p.Times, p.To = append([]int{}, o.times...), o.in.Clone()
	case broadcastLikeOp:
		p.To = o.to.Clone()
	case reduceSumLikeOp:
		p.Reduce, p.To = tensor.Sum, o.to.Clone()
	case softmaxGradOp:
		p.Axis = o.axis
	case sliceOp:
		p.Axis, p.Start, p.Stop = o.dim, o.start, o.stop
	case sliceGradOp:
		p.Axis, p.Start, p.Stop, p.To = o.dim, o.start, o.stop, o.like.Clone()
	case concatOp:
		p.Axis = o.dim
	case unaryGradOp:
		p.Unary = o.op
	case matmulTOp:
		p.TransA, p.TransB = o.ta, o.tb
	}
	return p
}
