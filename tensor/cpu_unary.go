package tensor

import (
	"fmt"
	"math"
)

// Unary applies op to every element of src.
func (CPU) Unary(op UnaryOp, src Tensor) (Tensor, error) {
	if err := UnaryOperand(op, src); err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(src.DType(), src.layout.shape, false, func() string { return fmt.Sprintf("%v %v", op, src.layout.shape) })
	if err != nil {
		return Tensor{}, err
	}
	switch s := src.data.(type) {
	case []float32:
		gatherRows(out.data.([]float32), s, src.layout, func(row []float32) { unaryFloats(op, row) })
	case []int32:
		gatherRows(out.data.([]int32), s, src.layout, func(row []int32) { orderedRow(op, row) })
	case []uint32:
		gatherRows(out.data.([]uint32), s, src.layout, func(row []uint32) { orderedRow(op, row) })
	}
	return out, nil
}

// unaryFloat is op on one float32: the definition every loop below
// applies, the float64 function rounded to float32.
func unaryFloat(op UnaryOp, x float32) float32 {
	v := float64(x)
	switch op {
	case Exp:
		return float32(expOf(float64(x)))
	case Log:
		return float32(math.Log(v))
	case Sqrt:
		return float32(math.Sqrt(v))
	case Rsqrt:
		return float32(1 / math.Sqrt(v))
	case Tanh:
		return float32(math.Tanh(v))
	case Erf:
		return float32(math.Erf(v))
	case Square:
		return float32(v * v) // exact in float64, rounded once
	}
	return unaryOrdered(op, x)
}

// unaryOrdered is neg, relu or step of one element of any dtype they
// take: the ops that need only sign and order.
func unaryOrdered[T Elem](op UnaryOp, x T) T {
	switch op {
	case Neg:
		return -x // float32 and int32 only (UnaryOp.Takes)
	case Relu:
		if x < 0 {
			return 0
		}
		return x
	case Step:
		if x > 0 {
			return 1
		}
		return 0
	}
	panic("tensor: no kernel for " + op.String()) // UnaryOperand refuses unknown ops, and float-only ops on integers, first
}

// unaryFloats applies op to row in place:
//
//	for i := range row { row[i] = unaryFloat(op, row[i]) }
func unaryFloats(op UnaryOp, row []float32) {
	switch op {
	case Neg, Relu, Step:
		orderedRow(op, row)
	case Exp: // unaryFloat's case, without its switch per element
		for i, x := range row {
			row[i] = float32(expOf(float64(x)))
		}
	default:
		for i, x := range row {
			row[i] = unaryFloat(op, x)
		}
	}
}

// orderedRow applies one of the ordered ops to row in place:
//
//	for i := range row { row[i] = unaryOrdered(op, row[i]) }
func orderedRow[T Elem](op UnaryOp, row []T) {
	for i, x := range row {
		row[i] = unaryOrdered(op, x)
	}
}
