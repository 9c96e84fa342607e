package shaders

import (
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// BinaryReduce runs Reduce(rop, Binary(bop, a, b), to) as one job
// (tensor.BinaryReducer): the binary kernel writes the broadcast result
// into a buffer on the device and the broadcast-reduce kernel reads it
// there, so the intermediate, a matmul's [m, k, n] products, is neither
// read back nor uploaded again: one upload of a and b, one readback of
// the reduced result. The kernels and their results are the two calls'.
// Work the one job cannot take runs as the two calls: an intermediate
// past one storage binding (which Reduce halves, reduceSplit), or an
// empty one.
func (g *GPU) BinaryReduce(bop tensor.BinaryOp, rop tensor.ReduceOp, a, b tensor.Tensor, to tensor.Shape) (tensor.Tensor, error) {
	shape, al, bl, err := tensor.BinaryOperands(bop, a, b)
	if err != nil {
		return tensor.Tensor{}, err
	}
	reduced, err := tensor.ReduceShapes(rop, shape, to)
	if err != nil {
		return tensor.Tensor{}, err
	}
	count, _ := shape.NumElements()
	if count == 0 || 4*uint64(count) > g.dev.limits.MaxStorageBufferBindingSize {
		return tensor.BinaryThenReduce(g, bop, rop, a, b, to)
	}
	label := fmt.Sprintf("%v of %v %v and %v to %v", rop, bop, a.Shape(), b.Shape(), to)
	// The intermediate is held to the result limit as the two calls (and
	// the CPU) hold it, though it never reaches the host.
	if err := tensor.CheckResult(fmt.Sprintf("%v %v and %v", bop, a.Shape(), b.Shape()), a.DType(), shape); err != nil {
		return tensor.Tensor{}, err
	}
	out, err := g.newResult(func() string { return label }, a.DType(), to)
	if err != nil {
		return tensor.Tensor{}, err
	}
	mid, err := tensor.Contiguous(shape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	cs, st := tensor.Coalesce(shape, tensor.ContiguousStrides(shape), al.Strides(), bl.Strides())
	e := elementwise{kernel: kernelBinary, op: bop.String(), dtype: a.DType(), shape: cs, strides: st[1:],
		ops: []operand{spanOf(a, al), spanOf(b, bl)}}
	return out, g.exec(label, out, func() (*job, error) {
		j, err := g.dev.elementwiseJob(e, count)
		if err != nil {
			return nil, err
		}
		products := binding{buf: j.out, size: roundUp16(4 * uint64(count))}
		outBuf, err := g.dev.newBuffer("out", 4*uint64(out.NumElements()), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc)
		if err != nil {
			j.release()
			return nil, err
		}
		j.owned = append(j.owned, outBuf)
		ds, partials, err := g.dev.reduceDispatches(rop, a.DType(), products, 0, mid, reduced, outBuf, out.NumElements())
		if err != nil {
			j.release()
			return nil, err
		}
		j.owned = append(j.owned, partials...)
		for _, dp := range ds {
			if err := j.add(g.dev, dp); err != nil {
				j.release()
				return nil, err
			}
		}
		j.out = outBuf
		return j, nil
	})
}
