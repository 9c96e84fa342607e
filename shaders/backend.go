package shaders

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// GPU is the WebGPU tensor.Backend. Each call uploads its inputs' spans,
// runs the kernel and reads the result back once.
type GPU struct {
	dev     *Device
	capture **job // set by Prepare: keep the call's job instead of running it
}

// NewBackend returns the backend running on dev.
func NewBackend(dev *Device) *GPU { return &GPU{dev: dev} }

// Name returns "gpu".
func (g *GPU) Name() string { return "gpu" }

// exec builds the job of one call and runs it into out, or hands it to
// Prepare's capture. Errors name the call.
func (g *GPU) exec(op string, out tensor.Tensor, build func() (*job, error)) error {
	if out.NumElements() == 0 {
		return nil
	}
	g.dev.mu.Lock()
	defer g.dev.mu.Unlock()
	return wrapErr(op, g.dev.scoped(func() error {
		j, err := build()
		if err != nil {
			return err
		}
		if g.capture != nil {
			if *g.capture != nil {
				j.release()
				return errCaptured
			}
			*g.capture = j
			return nil
		}
		defer j.release()
		return g.dev.readback(j, 1, tensor.RawBytes(out))
	}))
}

// newResult allocates the host tensor of a result of op after checking it
// against the process's result limit (tensor.CheckResult) and the device's
// maxBufferSize, which the result's buffer on the device must fit.
func (g *GPU) newResult(op func() string, dt tensor.DType, shape tensor.Shape) (tensor.Tensor, error) {
	bytes, err := tensor.ResultBytes(dt, shape)
	if err == nil && uint64(bytes) > g.dev.limits.MaxBufferSize {
		n, _ := shape.NumElements()
		return tensor.Tensor{}, &Error{Op: op(), Err: fmt.Errorf("%w: the result needs %s (%d %v elements); the device's maxBufferSize is %s",
			ErrTooLarge, tensor.FormatBytes(bytes), n, dt, tensor.FormatBytes(int64(g.dev.limits.MaxBufferSize)))}
	}
	if err == nil {
		err = tensor.CheckResult(op(), dt, shape)
	}
	if err != nil {
		return tensor.Tensor{}, err
	}
	return tensor.Empty(dt, shape)
}

// Materialize copies the view src into a new contiguous tensor with the
// gather kernel.
func (g *GPU) Materialize(src tensor.Tensor) (tensor.Tensor, error) {
	if !src.Valid() {
		return tensor.CPU{}.Materialize(src) // the CPU's error for an empty Tensor value
	}
	return g.gather("materialize "+src.Layout().String(), "", src)
}

// Unary applies op to every element of the view src with the gather
// kernel, which applies op to each element it reads
// (unaryOpWGSL).
func (g *GPU) Unary(op tensor.UnaryOp, src tensor.Tensor) (tensor.Tensor, error) {
	if err := tensor.UnaryOperand(op, src); err != nil {
		return tensor.Tensor{}, err
	}
	return g.gather(fmt.Sprintf("%v %v", op, src.Shape()), op.String(), src)
}

// gather runs the gather kernel over the view src, applying the unary op
// named op ("": none, a copy) to each element; label names the call.
func (g *GPU) gather(label, op string, src tensor.Tensor) (tensor.Tensor, error) {
	l := src.Layout()
	out, err := g.newResult(func() string { return label }, src.DType(), l.Shape())
	if err != nil {
		return tensor.Tensor{}, err
	}
	shape, st := tensor.Coalesce(l.Shape(), tensor.ContiguousStrides(l.Shape()), l.Strides())
	e := elementwise{kernel: kernelGather, op: op, dtype: src.DType(), shape: shape, strides: st[1:], ops: []operand{spanOf(src, l)}}
	return out, g.exec(label, out, func() (*job, error) { return g.dev.elementwiseJob(e, out.NumElements()) })
}

// Binary applies op to the broadcast of a and b with the binary kernel.
func (g *GPU) Binary(op tensor.BinaryOp, a, b tensor.Tensor) (tensor.Tensor, error) {
	shape, al, bl, err := tensor.BinaryOperands(op, a, b)
	if err != nil {
		return tensor.Tensor{}, err
	}
	out, err := g.newResult(func() string { return fmt.Sprintf("%v %v and %v", op, a.Shape(), b.Shape()) }, a.DType(), shape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	cs, st := tensor.Coalesce(shape, tensor.ContiguousStrides(shape), al.Strides(), bl.Strides())
	e := elementwise{kernel: kernelBinary, op: op.String(), dtype: a.DType(), shape: cs, strides: st[1:],
		ops: []operand{spanOf(a, al), spanOf(b, bl)}}
	label := fmt.Sprintf("%v %v and %v", op, a.Shape(), b.Shape())
	return out, g.exec(label, out, func() (*job, error) { return g.dev.elementwiseJob(e, out.NumElements()) })
}

// Repeat tiles src times[d] times along each dim with the direct repeat
// kernel (source coordinate = output coordinate mod source dim).
func (g *GPU) Repeat(src tensor.Tensor, times []int) (tensor.Tensor, error) {
	if !src.Valid() {
		return tensor.CPU{}.Repeat(src, times)
	}
	plan, err := tensor.PlanRepeat(src.Shape(), times)
	if err != nil {
		return tensor.Tensor{}, err
	}
	out, err := g.newResult(func() string { return fmt.Sprintf("repeat %v by %v", src.Shape(), times) }, src.DType(), plan.OutShape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	l := src.Layout()
	shape, aux, stride := splitInnerRepeat(coalesceRepeat(l, times))
	e := elementwise{kernel: kernelRepeat, dtype: src.DType(), shape: shape, aux: aux, strides: [][]int{stride},
		ops: []operand{spanOf(src, l)}}
	return out, g.exec(fmt.Sprintf("repeat %v by %v", l.Shape(), times), out, func() (*job, error) { return g.dev.elementwiseJob(e, out.NumElements()) })
}

// coalesceRepeat returns repeat's iteration space: output dims, source
// dims and source strides, with src padded on the left to len(times) dims.
// Dims of output size 1 are dropped, a source dim of size 1 gets stride 0,
// and dim d merges into d+1 when d+1 is not repeated and their strides
// chain: then (i_d mod s_d)·s_{d+1} + i_{d+1} = (i_d·s_{d+1} + i_{d+1}) mod (s_d·s_{d+1}).
func coalesceRepeat(l tensor.Layout, times []int) (shape, aux, stride []int) {
	lead := len(times) - l.Rank()
	for d, t := range times {
		s, st := 1, 0
		if d >= lead {
			s, st = l.Dim(d-lead), l.Stride(d-lead)
		}
		if s == 1 {
			st = 0
		}
		if s*t == 1 {
			continue
		}
		if n := len(shape) - 1; n >= 0 && t == 1 && st != 0 && stride[n] == s*st {
			shape[n], aux[n], stride[n] = shape[n]*s, aux[n]*s, st
			continue
		}
		shape, aux, stride = append(shape, s*t), append(aux, s), append(stride, st)
	}
	return shape, aux, stride
}

// splitInnerRepeat writes a repeated inner dim of output size src·times as
// two dims, times (source size 1) and src: out[t, i] = a[i], the reshape of
// OneFlow's repeat = reshape + expand + reshape. The inner dim holds the
// vec4 items and is never fanned; its copies, a dim of their own, are.
func splitInnerRepeat(shape, aux, stride []int) ([]int, []int, []int) {
	last := len(shape) - 1
	if last < 0 || last+1 >= maxRank || aux[last] == 1 || aux[last] == shape[last] {
		return shape, aux, stride
	}
	times, src, st := shape[last]/aux[last], aux[last], stride[last]
	shape = append(shape[:last], times, src)
	aux = append(aux[:last], 1, src)
	stride = append(stride[:last], 0, st)
	return shape, aux, stride
}

// Device returns the device g runs on.
func (g *GPU) Device() *Device { return g.dev }
