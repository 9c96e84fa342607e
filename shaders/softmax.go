package shaders

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/tensor"
)

// Softmax normalises src along axis with the softmax kernel
// (wgsl/softmax.wgsl): one invocation per line along axis, at any strides
// of src, the other dims coalesced. Input and output must each fit one
// storage binding.
func (g *GPU) Softmax(src tensor.Tensor, axis int) (tensor.Tensor, error) {
	if err := tensor.SoftmaxOperand(src, axis); err != nil {
		return tensor.Tensor{}, err
	}
	l := src.Layout()
	label := fmt.Sprintf("softmax %v along %d", l.Shape(), axis)
	out, err := g.newResult(func() string { return label }, tensor.Float32, l.Shape())
	if err != nil {
		return tensor.Tensor{}, err
	}
	return out, g.exec(label, out, func() (*job, error) { return g.dev.softmaxJob(src, l, axis, out.NumElements()) })
}

// softmaxJob prepares softmax of the view l of src along axis into a
// contiguous output of outputs elements: the lines are the coordinates
// of every dim but axis (coalesced over input and output strides), each
// line's elements l.Stride(axis) apart in the input and the output's
// contiguous stride of axis apart in the output.
func (d *Device) softmaxJob(src tensor.Tensor, l tensor.Layout, axis, outputs int) (*job, error) {
	full := l.Shape()
	outStrides := tensor.ContiguousStrides(full)
	var shape tensor.Shape
	var in, os []int
	for k := range full {
		if k != axis {
			shape, in, os = append(shape, full[k]), append(in, l.Stride(k)), append(os, outStrides[k])
		}
	}
	cs, st := tensor.Coalesce(shape, in, os)
	if len(cs) > maxRank {
		return nil, fmt.Errorf("the softmax kernel takes at most %d dims besides the axis after coalescing, %v has %d", maxRank, cs, len(cs))
	}
	lines := outputs / full[axis]
	if uint64(outputs) > math.MaxUint32 {
		return nil, tooLarge(fmt.Sprintf("an output of %d elements (u32 indices)", outputs), 4*uint64(outputs), 4*math.MaxUint32)
	}
	o := spanOf(src, l)
	var p params
	for k, n := range cs {
		p.shape[k], p.strideA[k], p.strideO[k] = uint32(n), int32(st[0][k]), int32(st[1][k])
	}
	p.count, p.baseA = uint32(lines), uint32(o.base)
	p.aux[0] = uint32(full[axis])
	p.strideB[0], p.strideB[1] = int32(l.Stride(axis)), int32(outStrides[axis])
	in0, outBuf, err := d.inputAndOutput("softmax", o.data, outputs)
	if err != nil {
		return nil, err
	}
	dp := dispatch{
		key:      programKey{kernel: kernelSoftmax, dtype: tensor.Float32, rank: len(cs), vec: 1},
		params:   p,
		storage:  []binding{{buf: in0, size: roundUp16(uint64(len(o.data)))}, {buf: outBuf, size: roundUp16(4 * uint64(outputs))}},
		workgrps: uint64((lines + workgroupSize - 1) / workgroupSize),
	}
	return d.newJob([]dispatch{dp}, outBuf, in0, outBuf)
}
