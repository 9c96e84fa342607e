package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type matmulOp struct{}

// Matmul is the product of a [m, k] and b [k, n], the example of the
// OneFlow documents. Its signatures:
//
//	S(0) x B    -> S(0)     rows of a, all of b: rows of the product
//	B    x S(1) -> S(1)     all of a, columns of b: columns of the product
//	S(1) x S(0) -> P(sum)   a k-range of both: a partial product
//	B    x B    -> B
//	P(sum) x B  -> P(sum),  B x P(sum) -> P(sum)   linear in each operand
//
// S(0) x S(0) is illegal: a row of the product needs all k rows of b.
// Each device computes its product as the broadcast kernels would:
// out[i,j] = Σ_k (a[i,k,1] · b[1,k,j]), a broadcast mul then a sum over k.
func Matmul() Op { return matmulOp{} }

func (matmulOp) Name() string   { return "matmul" }
func (matmulOp) String() string { return "matmul" }
func (matmulOp) Arity() int     { return 2 }

func (o matmulOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	a, b := in[0], in[1]
	if len(a) != 2 || len(b) != 2 {
		return nil, newError(ErrShape, describe(o, in), "matmul takes two matrices; the operands have %d and %d dims", len(a), len(b))
	}
	if a[1] != b[0] {
		return nil, newError(ErrShape, describe(o, in), "a has %d columns but b has %d rows", a[1], b[0])
	}
	return tensor.Shape{a[0], b[1]}, nil
}

func (o matmulOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	return []Signature{
		{In: []SBP{S(0), B}, Out: S(0)},
		{In: []SBP{B, S(1)}, Out: S(1)},
		{In: []SBP{S(1), S(0)}, Out: PSum},
		{In: []SBP{B, B}, Out: B},
		{In: []SBP{PSum, B}, Out: PSum},
		{In: []SBP{B, PSum}, Out: PSum},
	}
}

func (o matmulOp) why(in []tensor.Shape, sbps []SBP) string {
	a, b := sbps[0], sbps[1]
	switch {
	case a == S(0) && b == S(0):
		return "each device holds some rows of a and some k-rows of b, but a row of the product needs all of b's rows"
	case a == S(1) && b != S(0):
		return fmt.Sprintf("a split along k pairs only with b split along k (S(0)), not %v", b)
	case b == S(0) && a != S(1):
		return fmt.Sprintf("b split along k pairs only with a split along k (S(1)), not %v", a)
	case a.Kind == Partial && b.Kind == Partial:
		return "the product of two sums is not the sum of the products"
	case a.Kind == Partial || b.Kind == Partial:
		return "a matmul is linear in one partial-sum operand only when the other is B, and never in a partial max or min"
	}
	return ""
}

func (o matmulOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o matmulOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	a, b := in[0], in[1]
	sa := a.Shape()
	a3, err := a.Reshape([]int{sa[0], sa[1], 1})
	if err != nil {
		if a3, err = be.Materialize(a); err == nil {
			a3, err = a3.Reshape([]int{sa[0], sa[1], 1})
		}
		if err != nil {
			return tensor.Tensor{}, err
		}
	}
	prod, err := be.Binary(tensor.Mul, a3, b)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer prod.Release()
	sum, err := be.Reduce(tensor.Sum, prod, tensor.Shape{out[0], 1, out[1]})
	if err != nil {
		return tensor.Tensor{}, err
	}
	return sum.Reshape(out)
}
