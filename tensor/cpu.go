package tensor

import "fmt"

// CPU is the reference Backend: plain Go loops over coalesced dims, split
// across GOMAXPROCS goroutines for large tensors. Every other backend is
// checked against it.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// Materialize copies the view src into a new contiguous tensor.
func (CPU) Materialize(src Tensor) (Tensor, error) {
	if !src.Valid() {
		return Tensor{}, newError(ErrShape, "materialize", "the input is an empty Tensor value")
	}
	out, err := newContiguous(src.DType(), src.layout.shape, false, func() string { return "materialize " + src.layout.String() })
	if err != nil {
		return Tensor{}, err
	}
	switch s := src.data.(type) {
	case []float32:
		copyStrided(out.data.([]float32), s, src.layout)
	case []int32:
		copyStrided(out.data.([]int32), s, src.layout)
	case []uint32:
		copyStrided(out.data.([]uint32), s, src.layout)
	}
	return out, nil
}

// Binary applies op to the broadcast of a and b.
func (CPU) Binary(op BinaryOp, a, b Tensor) (Tensor, error) {
	shape, al, bl, err := BinaryOperands(op, a, b)
	if err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(a.DType(), shape, false, func() string { return fmt.Sprintf("%v %v and %v", op, a.layout.shape, b.layout.shape) })
	if err != nil {
		return Tensor{}, err
	}
	switch ad := a.data.(type) {
	case []float32:
		binaryStrided(op, out.data.([]float32), ad, al, b.data.([]float32), bl)
	case []int32:
		binaryStrided(op, out.data.([]int32), ad, al, b.data.([]int32), bl)
	case []uint32:
		binaryStrided(op, out.data.([]uint32), ad, al, b.data.([]uint32), bl)
	}
	return out, nil
}

// Repeat tiles src times[d] times along each dim (PyTorch's repeat).
func (CPU) Repeat(src Tensor, times []int) (Tensor, error) {
	if !src.Valid() {
		return Tensor{}, newError(ErrShape, fmt.Sprintf("repeat by %v", times), "the input is an empty Tensor value")
	}
	plan, err := PlanRepeat(src.layout.shape, times)
	if err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(src.DType(), plan.OutShape, false, func() string { return fmt.Sprintf("repeat %v by %v", src.layout.shape, times) })
	if err != nil {
		return Tensor{}, err
	}
	switch s := src.data.(type) {
	case []float32:
		repeatStrided(out.data.([]float32), s, src.layout, times)
	case []int32:
		repeatStrided(out.data.([]int32), s, src.layout, times)
	case []uint32:
		repeatStrided(out.data.([]uint32), s, src.layout, times)
	}
	return out, nil
}

// Reduce combines src over its reduced dims into a tensor of shape to.
// Float32 sums accumulate in float64.
func (CPU) Reduce(op ReduceOp, src Tensor, to Shape) (Tensor, error) {
	reduced, err := ReduceOperands(op, src, to)
	if err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(src.DType(), to, false, func() string { return fmt.Sprintf("reduce %v %v to %v", op, src.layout.shape, to) })
	if err != nil {
		return Tensor{}, err
	}
	switch s := src.data.(type) {
	case []float32:
		if op == Sum {
			reduceStrided[float32, float64](op, out.data.([]float32), s, src.layout, reduced)
		} else {
			reduceStrided[float32, float32](op, out.data.([]float32), s, src.layout, reduced)
		}
	case []int32:
		reduceStrided[int32, int32](op, out.data.([]int32), s, src.layout, reduced)
	case []uint32:
		reduceStrided[uint32, uint32](op, out.data.([]uint32), s, src.layout, reduced)
	}
	return out, nil
}
