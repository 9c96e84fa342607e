package sbp

import (
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// EagerSignatures lists op's signatures for inputs of shapes as OneFlow's
// eager SBP inference sees them, in OneFlow's order: the op's own list
// (its GetSbp, one signature per builder call, in the order the source
// builds them), then the all-broadcast signature, which
// Operator::GetSbpSignaturesIf (oneflow/core/operator/operator.cpp)
// appends last to every op's list, even when the op listed it already.
// OneFlow's P is P(sum). Signatures stridelab adds beyond OneFlow's
// (expand's B -> S(d), P(max) and P(min), reduce's S(a) -> P(max), neg's
// P -> P) are not in it; they are for the exact planner. A OneFlow signature
// stridelab's op does not have (such as div's P x B -> P) is left out,
// since it could not run here.
//
// The lists, from the OneFlow sources named in docs/planner-sources.md §2:
//
//	expand     ExpandOp::GetSbp: S(i) -> S(i+lead) per kept input axis; P -> P
//	binary     GetBinaryBroadcastSbpSignature: per output dim S/B pairs
//	           (equal ranks: dims in order; unequal: the new leading dims,
//	           then the shared ones from the last); then add, sub: P x P;
//	           mul: B x P, P x B; div: P x B (left out, see Binary)
//	reduce     GetSbpFn: per axis in order, kept: S(i) -> S(i');
//	           reduced (sum only): S(i) -> P, then P -> P
//	matmul     MatmulOp::GetSbp: S(0) x B, B x S(1), S(1) x S(0), P x B, B x P;
//	           batched: BatchMatmulOp::GetSbp (equal ranks and batch dims)
//	           or BroadcastMatmulOp::GetSbp: per batch dim S x S, B x S or
//	           S x B, then the 2-D list on the last two dims
//	transpose, TransposeOp::GetSbp (transpose is a permute): per output dim
//	permute    i, S(perm[i]) -> S(i); P -> P
//	scale      ScalarMul's GetSbp: S(i) -> S(i) per axis; P -> P
//	unary      exp, log, neg, sqrt, rsqrt, erf, square (math_unary_elementwise_op.cpp),
//	           tanh (tanh_op.cpp): GetSbpFnUtil::SplitForEachAxis; relu
//	           (relu_op.cpp) the same loop: S(i) -> S(i) per axis, no P
//	reshape    GetReshapeUserOpSbpSignatures (reshape_user_op_util.cpp):
//	           size-1 dims squeezed out, per group start in input order
//	           S(i) -> S(j); P -> P; a rank-0 or empty input only B
//	mean       ReduceMeanFunctor: reduce_sum, then scalar_mul by 1/count,
//	           which keeps every SBP: reduce_sum's list
//	softmax    SoftmaxOp::GetSbp (softmax_op.cpp): S(i) -> S(i) per axis
//	           but the normalised one (OneFlow's last; here the op's dim)
//
// repeat is not a OneFlow user op: OneFlow's repeat is a reshape, an
// expand and a reshape, and the lists of those three chained give S(a)
// -> S(lead+a) for every axis a it does not tile (a tiled axis's split
// is not at the start of the reshape's merged group) and P -> P, then
// all-B: no B -> S(d) (OneFlow's expand has none). repeat_grad's list is
// stridelab's own (its signatures with B -> B moved last), which is also
// what the chain back (reshape, expand's reduce_sum, reshape) lists.
func EagerSignatures(op Op, shapes []tensor.Shape) []Signature {
	own := op.Signatures(shapes)
	var list []Signature
	if e, ok := op.(eagerLister); ok {
		for _, s := range e.oneflow(shapes) {
			if slices.ContainsFunc(own, func(o Signature) bool { return o.Out == s.Out && slices.Equal(o.In, s.In) }) {
				list = append(list, s)
			}
		}
	} else {
		for _, s := range own {
			if !allB(s) {
				list = append(list, s)
			}
		}
	}
	b := Signature{In: make([]SBP, op.Arity()), Out: B}
	for i := range b.In {
		b.In[i] = B
	}
	return append(list, b)
}

// eagerLister is an op with a OneFlow list of its own.
type eagerLister interface {
	// oneflow is the op's GetSbp list, without the all-B signature.
	oneflow(in []tensor.Shape) []Signature
}

func allB(s Signature) bool {
	for _, x := range s.In {
		if x != B {
			return false
		}
	}
	return s.Out == B
}

func (o expandOp) oneflow(in []tensor.Shape) []Signature {
	out, err := o.OutShape(in)
	if err != nil {
		return nil
	}
	lead := len(out) - len(in[0])
	var sigs []Signature
	for i := range in[0] {
		if in[0][i] == out[i+lead] {
			sigs = append(sigs, Signature{In: []SBP{S(i)}, Out: S(i + lead)})
		}
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o binaryOp) oneflow(in []tensor.Shape) []Signature {
	x, y := in[0], in[1]
	var sigs []Signature
	switch rx, ry := len(x), len(y); {
	case rx < ry:
		for i := range ry - rx {
			sigs = append(sigs, Signature{In: []SBP{B, S(i)}, Out: S(i)})
		}
		for i := range rx {
			sigs = append(sigs, Signature{In: []SBP{S(rx - 1 - i), S(ry - 1 - i)}, Out: S(ry - 1 - i)})
		}
	case rx > ry:
		for i := range rx - ry {
			sigs = append(sigs, Signature{In: []SBP{S(i), B}, Out: S(i)})
		}
		for i := range ry {
			sigs = append(sigs, Signature{In: []SBP{S(rx - 1 - i), S(ry - 1 - i)}, Out: S(rx - 1 - i)})
		}
	default:
		for i := range rx {
			switch {
			case x[i] == 1 && y[i] == 1:
			case x[i] == y[i]:
				sigs = append(sigs, Signature{In: []SBP{S(i), S(i)}, Out: S(i)})
			case x[i] == 1:
				sigs = append(sigs, Signature{In: []SBP{B, S(i)}, Out: S(i)})
			case y[i] == 1:
				sigs = append(sigs, Signature{In: []SBP{S(i), B}, Out: S(i)})
			}
		}
	}
	switch o.op {
	case tensor.Add, tensor.Sub:
		sigs = append(sigs, Signature{In: []SBP{PSum, PSum}, Out: PSum})
	case tensor.Mul:
		sigs = append(sigs, Signature{In: []SBP{B, PSum}, Out: PSum}, Signature{In: []SBP{PSum, B}, Out: PSum})
	case tensor.Div:
		sigs = append(sigs, Signature{In: []SBP{PSum, B}, Out: PSum})
	}
	return sigs
}

func (o reduceOp) oneflow(in []tensor.Shape) []Signature {
	reduced, err := tensor.ReducedAxes(in[0], o.to)
	if err != nil {
		return nil
	}
	lead := len(in[0]) - len(o.to)
	var sigs []Signature
	for i, r := range reduced {
		switch {
		case r && o.op == tensor.Sum:
			sigs = append(sigs, Signature{In: []SBP{S(i)}, Out: PSum}, Signature{In: []SBP{PSum}, Out: PSum})
		case !r:
			sigs = append(sigs, Signature{In: []SBP{S(i)}, Out: S(i - lead)})
		}
	}
	return sigs
}

// oneflow is the list of the op flow.matmul dispatches to: matmul for
// two matrices, batch_matmul for equal ranks with equal batch dims (a
// split on every batch dim, size 1 included), broadcast_matmul otherwise
// (per batch dim, padded with 1 from the left: S x S where both are
// equal and not 1, B x S where only a's is 1, S x B where only b's is);
// then each lists the 2-D signatures on the last two dims.
func (matmulOp) oneflow(in []tensor.Shape) []Signature {
	a, b := in[0], in[1]
	ra, rb := len(a), len(b)
	if ra < 2 || rb < 2 {
		return nil
	}
	r := max(ra, rb)
	var sigs []Signature
	if ra == rb && slices.Equal(a[:ra-2], b[:rb-2]) { // batch_matmul
		for i := range r - 2 {
			sigs = append(sigs, Signature{In: []SBP{S(i), S(i)}, Out: S(i)})
		}
	} else { // broadcast_matmul
		for i := range r - 2 {
			na, nb := batchDim(a, r, i), batchDim(b, r, i)
			switch {
			case na == nb && na != 1:
				sigs = append(sigs, Signature{In: []SBP{S(i - (r - ra)), S(i - (r - rb))}, Out: S(i)})
			case na == 1 && nb != 1:
				sigs = append(sigs, Signature{In: []SBP{B, S(i - (r - rb))}, Out: S(i)})
			case nb == 1 && na != 1:
				sigs = append(sigs, Signature{In: []SBP{S(i - (r - ra)), B}, Out: S(i)})
			}
		}
	}
	// the 2-D five: the matrix op's list without B x B (all-B comes last)
	return append(sigs, slices.DeleteFunc(matrixSignatures(ra, rb), allB)...)
}

func (o permuteOp) oneflow(in []tensor.Shape) []Signature {
	var sigs []Signature
	for k, d := range o.order(len(in[0])) {
		sigs = append(sigs, Signature{In: []SBP{S(d)}, Out: S(k)})
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o scaleOp) oneflow(in []tensor.Shape) []Signature {
	var sigs []Signature
	for k := range in[0] {
		sigs = append(sigs, Signature{In: []SBP{S(k)}, Out: S(k)})
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

func (o reshapeOp) oneflow(in []tensor.Shape) []Signature {
	_, groups, err := o.groups(in)
	if n, _ := in[0].NumElements(); err != nil || len(in[0]) == 0 || n == 0 {
		return nil
	}
	var sigs []Signature
	for _, g := range groups {
		if len(g.In) > 0 && len(g.Out) > 0 && in[0][g.In[0]] != 1 {
			sigs = append(sigs, Signature{In: []SBP{S(g.In[0])}, Out: S(g.Out[0])})
		}
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}

// oneflow is repeat's list as OneFlow's reshape, expand and reshape give
// it (see EagerSignatures): an untiled axis's split, then P(sum).
func (o repeatOp) oneflow(in []tensor.Shape) []Signature {
	var sigs []Signature
	for _, s := range o.Signatures(in) {
		if s.In[0].Kind == Split {
			sigs = append(sigs, s)
		}
	}
	return append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
}
