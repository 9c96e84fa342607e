// Package kernelcheck runs tensor's CPU kernels on arange inputs, whose
// values are their own storage offsets, so that each output cell's value
// says which input elements the kernel read for it. The truth tests of
// viz (every drawn cell reads what the kernel reads) and of lessons
// (every answer is what the kernel computes) check against it; it takes
// tensor's values only, so viz's own tests can import it.
//
// # Reading the output
//
// One input (expand, repeat, a view): out[i] = x[off] = off, so the cell
// read x's storage offset out[i]. Binary (add): a is arange and b is
// arange·M with M = a's element count + 1, so out[i] = off_a + M·off_b
// names both reads. Reduce: out[i] is the op over the offsets it combined.
// Values are float32, exact up to 2^24: Binary and a Sum by Reduce refuse
// shapes whose values could pass it, so a check never reads a rounded
// offset.
package kernelcheck

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// exact is 2^24: float32 holds every whole number up to it.
const exact = 1 << 24

// Output is a kernel's result on arange inputs.
type Output struct {
	Y tensor.Tensor // the kernel's result
	m int           // Binary: b's values are its offsets times m; 0 otherwise
}

// Reads returns the storage offset each operand's read at out[idx]:
// {"x": 5} for one input, {"a": 2, "b": 1} for Binary. A reduce combines
// many reads into one value: read it with At.
func (o Output) Reads(idx []int) map[string]int {
	v := int(o.Y.At(idx...))
	if o.m > 0 {
		return map[string]int{"a": v % o.m, "b": v / o.m}
	}
	return map[string]int{"x": v}
}

// Operands lists the operands Reads names, in order: x, or a then b.
func (o Output) Operands() []string {
	if o.m > 0 {
		return []string{"a", "b"}
	}
	return []string{"x"}
}

// At is the kernel's value at out[idx].
func (o Output) At(idx []int) float64 { return o.Y.At(idx...) }

// Expand runs tensor.Expand of arange(shape) to size.
func Expand(shape tensor.Shape, size []int) (Output, error) {
	return run(shape, func(x tensor.Tensor) (tensor.Tensor, error) { return tensor.Expand(tensor.CPU{}, x, size) })
}

// Repeat runs the CPU's Repeat of arange(shape) by times.
func Repeat(shape tensor.Shape, times []int) (Output, error) {
	return run(shape, func(x tensor.Tensor) (tensor.Tensor, error) { return tensor.CPU{}.Repeat(x, times) })
}

// View materializes the view v of arange(shape)'s storage (v is a layout
// of shape's contiguous elements: a slice, permute or reshape of it).
func View(shape tensor.Shape, v tensor.Layout) (Output, error) {
	return run(shape, func(x tensor.Tensor) (tensor.Tensor, error) {
		xv, err := x.WithLayout(v)
		if err != nil {
			return tensor.Tensor{}, err
		}
		return tensor.CPU{}.Materialize(xv)
	})
}

// Reduce runs the CPU's Reduce by op of arange(shape) to the shape to.
func Reduce(op tensor.ReduceOp, shape, to tensor.Shape) (Output, error) {
	if n, err := shape.NumElements(); err == nil && op == tensor.Sum && n*(n-1)/2 > exact {
		return Output{}, fmt.Errorf("kernelcheck: the sum of %v's offsets, up to %d, does not stay exact in float32", shape, n*(n-1)/2)
	}
	return run(shape, func(x tensor.Tensor) (tensor.Tensor, error) { return tensor.CPU{}.Reduce(op, x, to) })
}

// Binary runs the CPU's broadcast Add of arange(a) and arange(b)·M, M the
// element count of a plus one, so that Reads names both operands' reads.
func Binary(a, b tensor.Shape) (Output, error) {
	na, err := a.NumElements()
	if err != nil {
		return Output{}, err
	}
	m := na + 1
	if nb, err := b.NumElements(); err == nil && m*nb > exact {
		return Output{}, fmt.Errorf("kernelcheck: binary %v and %v: offsets up to %d·%d do not stay exact in float32", a, b, m, nb)
	}
	bt, err := tensor.Arange(tensor.Float32, b)
	if err != nil {
		return Output{}, err
	}
	bs, err := tensor.Buffer[float32](bt)
	if err != nil {
		return Output{}, err
	}
	for i := range bs {
		bs[i] *= float32(m)
	}
	out, err := run(a, func(x tensor.Tensor) (tensor.Tensor, error) { return tensor.CPU{}.Binary(tensor.Add, x, bt) })
	out.m = m
	return out, err
}

// run runs kernel on arange(shape).
func run(shape tensor.Shape, kernel func(x tensor.Tensor) (tensor.Tensor, error)) (Output, error) {
	x, err := tensor.Arange(tensor.Float32, shape)
	if err != nil {
		return Output{}, err
	}
	y, err := kernel(x)
	if err != nil {
		return Output{}, err
	}
	return Output{Y: y}, nil
}
