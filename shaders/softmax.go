package shaders

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/tensor"
)

// Softmax normalises src along axis with the softmax kernel: on a GPU a
// workgroup per line along axis (wgsl/softmax_lanes.wgsl), on a CPU
// adapter one invocation per line (wgsl/softmax.wgsl), at any strides of
// src, the other dims coalesced. Work whose input span or output does
// not fit one storage binding is split in halves along another dim
// (softmaxSplit); lines whose stride alone spans more than a binding are
// gathered contiguous first (softmaxGathered); a single contiguous line
// that does not fit is an error.
func (g *GPU) Softmax(src tensor.Tensor, axis int) (tensor.Tensor, error) {
	if err := tensor.SoftmaxOperand(src, axis); err != nil {
		return tensor.Tensor{}, err
	}
	l := src.Layout()
	if n, st := l.Dim(axis), l.Stride(axis); st != 1 && n > 1 && 4*uint64((n-1)*max(st, -st)+1+3) > g.dev.limits.MaxStorageBufferBindingSize {
		return g.softmaxGathered(src, axis)
	}
	if d, ok := g.dev.softmaxSplitDim(l, axis); ok {
		return g.softmaxSplit(src, axis, d)
	}
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
	if !d.onCPU() {
		// A GPU: a workgroup per line, its lanes side by side along it
		// (wgsl/softmax_lanes.wgsl); a CPU adapter runs a workgroup's
		// lanes one vector after another and pays for every barrier.
		dp.key.kernel, dp.workgrps = kernelSoftmaxLanes, uint64(lines)
	}
	return d.newJob([]dispatch{dp}, outBuf, in0, outBuf)
}

// softmaxSplitDim returns the dim of l, other than axis, to halve when the
// softmax's input span or output exceeds one storage binding: for the
// input the dim that spans the most memory ((size−1)·|stride|), for the
// output the largest. ok is false when the work fits, or no dim but the
// axis can be halved (the kernel's error then names what does not fit).
func (d *Device) softmaxSplitDim(l tensor.Layout, axis int) (dim int, ok bool) {
	limit := d.limits.MaxStorageBufferBindingSize
	lo, hi := l.Span()
	inBytes := 4 * uint64(hi-lo+1+3) // +3: the pad that aligns the base (spanOf)
	outBytes := 4 * uint64(l.NumElements())
	best, dim := 0, -1
	for k := range l.Rank() {
		n := l.Dim(k)
		if k == axis || n < 2 {
			continue
		}
		extent := n
		if inBytes > limit {
			extent = (n - 1) * max(l.Stride(k), -l.Stride(k))
		} else if outBytes <= limit {
			continue
		}
		if extent > best {
			best, dim = extent, k
		}
	}
	return dim, dim >= 0
}

// softmaxSplit is softmax of src along axis in two halves of dim d (not
// axis): each half holds whole lines, so its softmax is the whole's on
// those lines, and the halves are concatenated along d.
func (g *GPU) softmaxSplit(src tensor.Tensor, axis, d int) (tensor.Tensor, error) {
	n := src.Layout().Dim(d)
	parts := make([]tensor.Tensor, 2)
	for i, r := range [][2]int{{0, n / 2}, {n / 2, n}} {
		half, err := src.Narrow(d, r[0], r[1])
		if err != nil {
			return tensor.Tensor{}, err
		}
		if parts[i], err = g.Softmax(half, axis); err != nil {
			if i == 1 {
				parts[0].Release()
			}
			return tensor.Tensor{}, err
		}
	}
	defer parts[0].Release()
	defer parts[1].Release()
	return tensor.Concat(d, parts...)
}

// softmaxGathered is softmax of src along axis with axis moved last and
// the view gathered contiguous (Materialize, which splits into chunks),
// so each line is one run of memory, then the result permuted back and
// gathered: two more copies, for lines too far apart for one binding.
func (g *GPU) softmaxGathered(src tensor.Tensor, axis int) (tensor.Tensor, error) {
	rank := src.Layout().Rank()
	perm := make([]int, 0, rank)
	for k := range rank {
		if k != axis {
			perm = append(perm, k)
		}
	}
	perm = append(perm, axis)
	moved, err := src.Permute(perm)
	if err != nil {
		return tensor.Tensor{}, err
	}
	lines, err := g.Materialize(moved)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer lines.Release()
	y, err := g.Softmax(lines, rank-1)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer y.Release()
	back := make([]int, rank)
	for i, k := range perm {
		back[k] = i
	}
	yv, err := y.Permute(back)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return g.Materialize(yv)
}
