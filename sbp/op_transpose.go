package sbp

import (
	"github.com/stridelab/stridelab/tensor"
)

type transposeOp struct{}

// Transpose is the 2-D transpose, y[j, i] = x[i, j]. Its signatures:
//
//	S(0) -> S(1)    rows of x are columns of y
//	S(1) -> S(0)    columns of x are rows of y
//	B    -> B
//	P(op) -> P(op)  a transpose moves values without combining them, so
//	                it commutes with sum, max and min
//
// Every SBP of a matrix has a signature. Each device materializes the
// transposed view of its shard (a permute, then a copy), so it runs on any
// backend.
func Transpose() Op { return transposeOp{} }

func (transposeOp) Name() string   { return "transpose" }
func (transposeOp) String() string { return "transpose" }
func (transposeOp) Arity() int     { return 1 }

func (o transposeOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if len(in[0]) != 2 {
		return nil, newError(ErrShape, describe(o, in), "transpose takes a matrix; the input %v has %d dims", in[0], len(in[0]))
	}
	return tensor.Shape{in[0][1], in[0][0]}, nil
}

func (o transposeOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := []Signature{
		{In: []SBP{S(0)}, Out: S(1)},
		{In: []SBP{S(1)}, Out: S(0)},
		{In: []SBP{B}, Out: B},
	}
	return append(sigs, partialsThrough()...)
}

// why has nothing to add: every valid SBP of a matrix has a signature.
func (transposeOp) why(in []tensor.Shape, sbps []SBP) string { return "" }

func (transposeOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (transposeOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	v, err := in[0].Permute([]int{1, 0})
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}
