package sbp

import (
	"math"

	"github.com/stridelab/stridelab/tensor"
)

// This file holds what a simulated device does to its own buffers besides
// running kernels: fill, slice and combine partial values. Copies between
// devices are concatenations (tensor.Concat); the plan (PlanBoxing) counts
// their bytes.

// identity returns the value a partial of op starts from: 0 for sum, the
// lowest value for max, the highest for min.
func identity(dt tensor.DType, op tensor.ReduceOp) float64 {
	switch {
	case op == tensor.Sum:
		return 0
	case dt == tensor.Float32:
		return map[tensor.ReduceOp]float64{tensor.MaxAll: math.Inf(-1), tensor.MinAll: math.Inf(1)}[op]
	case dt == tensor.Int32:
		return map[tensor.ReduceOp]float64{tensor.MaxAll: math.MinInt32, tensor.MinAll: math.MaxInt32}[op]
	default: // uint32
		return map[tensor.ReduceOp]float64{tensor.MaxAll: 0, tensor.MinAll: math.MaxUint32}[op]
	}
}

// filled returns a new tensor of shape with every element v.
func filled(dt tensor.DType, shape tensor.Shape, v float64) (tensor.Tensor, error) {
	t, err := tensor.Empty(dt, shape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	switch dt {
	case tensor.Float32:
		fillWith(t, float32(v))
	case tensor.Int32:
		fillWith(t, int32(v))
	case tensor.Uint32:
		fillWith(t, uint32(v))
	}
	return t, nil
}

func fillWith[T tensor.Elem](t tensor.Tensor, v T) {
	d, _ := tensor.Buffer[T](t)
	for i := range d {
		d[i] = v
	}
}

// combine folds partial values elementwise on the device's backend:
// parts[0] op parts[1] op ….
func combine(be tensor.Backend, op tensor.ReduceOp, parts []tensor.Tensor) (tensor.Tensor, error) {
	acc, err := be.Materialize(parts[0])
	for _, p := range parts[1:] {
		if err != nil {
			break
		}
		next, e := be.Binary(op.Combiner(), acc, p)
		acc.Release()
		acc, err = next, e
	}
	return acc, err
}

// sliceAxis returns a new buffer holding t[…, lo:hi, …] along axis.
func sliceAxis(be tensor.Backend, t tensor.Tensor, axis, lo, hi int) (tensor.Tensor, error) {
	v, err := t.Narrow(axis, lo, hi)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}

// dense returns t itself when it is a contiguous view, else a contiguous
// copy made on be: every device's buffer is its own dense tensor.
func dense(be tensor.Backend, t tensor.Tensor) (tensor.Tensor, error) {
	if t.Layout().IsContiguous() {
		return t, nil
	}
	return be.Materialize(t)
}
