package tensor

import (
	"fmt"
	"math"
)

// SoftmaxOperand validates softmax of src along axis: a valid float32
// tensor of rank at least 1 and 0 ≤ axis < rank (a caller counting from
// the end resolves a negative dim first).
func SoftmaxOperand(src Tensor, axis int) error {
	name := fmt.Sprintf("softmax %v along %d", src.layout.shape, axis)
	if !src.Valid() {
		return newError(ErrShape, name, "the input is an empty Tensor value")
	}
	if src.DType() != Float32 {
		return newError(ErrDType, name, "softmax takes float32 tensors, not %v (as torch, which refuses integer ones); convert it first", src.DType())
	}
	if r := src.layout.Rank(); axis < 0 || axis >= r {
		if r == 0 {
			return newError(ErrIndex, name, "a scalar has no dim to normalise along")
		}
		return newError(ErrIndex, name, "the tensor has %d dims, so the axis is 0 to %d", r, r-1)
	}
	return nil
}

// Softmax normalises src along axis: copied to a contiguous result first
// (the gather's rows), then each line along axis in place, in float64
// (softmaxLine), the lines split over the CPUs.
func (CPU) Softmax(src Tensor, axis int) (Tensor, error) {
	if err := SoftmaxOperand(src, axis); err != nil {
		return Tensor{}, err
	}
	shape := src.layout.shape
	out, err := newContiguous(Float32, shape, false, func() string { return fmt.Sprintf("softmax %v along %d", shape, axis) })
	if err != nil {
		return Tensor{}, err
	}
	y := out.data.([]float32)
	gatherRows(y, src.data.([]float32), src.layout, nil)
	n := shape[axis]
	inner := 1
	for _, s := range shape[axis+1:] {
		inner *= s
	}
	if n == 0 || inner == 0 {
		return out, nil
	}
	// Line l (row-major over the dims other than axis) starts at
	// (l / inner)·n·inner + l mod inner and steps by inner.
	parallelFor(len(y)/n, len(y), func(lo, hi int) {
		exps := make([]float64, n)
		for l := lo; l < hi; l++ {
			start := l/inner*n*inner + l%inner
			softmaxLine(y[start:start+(n-1)*inner+1], inner, exps)
		}
	})
	return out, nil
}

// softmaxLine normalises the elements line[0], line[stride], … in place,
// with the line's max subtracted so no exp overflows:
//
//	m = max_j x_j;  y_j = exp(x_j − m) / Σ_k exp(x_k − m)
//
// in float64 (expOf), rounded to float32 once; exps holds the line's exps between
// the sum and the division (one per element). As torch's: a NaN makes the
// whole line NaN (max keeps it), and so does a max of ±Inf (a line
// of −Inf: −Inf − −Inf is NaN; a +Inf: +Inf − +Inf is NaN in the sum),
// while a −Inf beside finite values gives 0.
func softmaxLine(line []float32, stride int, exps []float64) {
	m := math.Inf(-1)
	for j := 0; j < len(line); j += stride {
		m = max(m, float64(line[j])) // NaN wins, as in math.Max, but inline
	}
	var sum float64
	for j, k := 0, 0; j < len(line); j, k = j+stride, k+1 {
		exps[k] = expOf(float64(line[j]) - m)
		sum += exps[k]
	}
	for j, k := 0, 0; j < len(line); j, k = j+stride, k+1 {
		line[j] = float32(exps[k] / sum)
	}
}
