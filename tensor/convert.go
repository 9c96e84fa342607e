package tensor

import "fmt"

// ExactFloat32 is t's values as a new contiguous float32 tensor when
// float32 holds every one of them exactly (an integer within ±2^24),
// else an error naming the first that it does not.
func ExactFloat32(t Tensor) (Tensor, error) {
	v := t.Float64s()
	f := make([]float32, len(v))
	for i, x := range v {
		if float64(float32(x)) != x {
			return Tensor{}, newError(ErrDType, fmt.Sprintf("float32 of %v %v", t.DType(), t.Shape()), "element %d is %v, which float32 does not hold exactly", i, x)
		}
		f[i] = float32(x)
	}
	return FromSlice(t.Shape(), f)
}

// ExactInt32 is t's values as a new contiguous int32 tensor when each is
// a whole number within int32 (token ids read from a float file), else
// an error naming the first that is not.
func ExactInt32(t Tensor) (Tensor, error) {
	v := t.Float64s()
	out := make([]int32, len(v))
	for i, x := range v {
		if x != float64(int32(x)) {
			return Tensor{}, newError(ErrDType, fmt.Sprintf("int32 of %v %v", t.DType(), t.Shape()), "element %d is %v, which is not a whole number within int32", i, x)
		}
		out[i] = int32(x)
	}
	return FromSlice(t.Shape(), out)
}
