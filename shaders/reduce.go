package shaders

import (
	"fmt"
	"math/bits"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// Reduce combines src over its reduced dims into a tensor of shape to with
// the broadcast-reduce kernel: tensor.ReduceGeometry merges runs of kept
// and reduced dims, then LANES invocations per output fold the reduced
// elements and combine in a workgroup tree. Float sums accumulate in f32.
// Work too large for one binding is split in halves (reduceSplit).
func (g *GPU) Reduce(op tensor.ReduceOp, src tensor.Tensor, to tensor.Shape) (tensor.Tensor, error) {
	reduced, err := tensor.ReduceOperands(op, src, to)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if d, ok := g.dev.splitDim(src.Layout(), reduced, to); ok {
		return g.reduceSplit(op, src, to, reduced, d)
	}
	l := src.Layout()
	label := fmt.Sprintf("%v %v to %v", op, l.Shape(), to)
	out, err := g.newResult(func() string { return label }, src.DType(), to)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if out.NumElements() == 0 {
		return out, nil
	}
	return out, g.exec(label, out, func() (*job, error) { return g.dev.reduceJob(op, src, l, reduced, out.NumElements()) })
}

// reduceJob prepares the reduction of view l of src over its reduced dims
// into outputs elements.
func (d *Device) reduceJob(op tensor.ReduceOp, src tensor.Tensor, l tensor.Layout, reduced []bool, outputs int) (*job, error) {
	o := spanOf(src, l)
	in0, outBuf, err := d.inputAndOutput("reduce", o.data, outputs)
	if err != nil {
		return nil, err
	}
	ds, partials, err := d.reduceDispatches(op, src.DType(), binding{buf: in0, size: roundUp16(uint64(len(o.data)))}, o.base, l, reduced, outBuf, outputs)
	if err != nil {
		freeAll([]*wgpu.Buffer{in0, outBuf})
		return nil, err
	}
	return d.newJob(ds, outBuf, append([]*wgpu.Buffer{in0, outBuf}, partials...)...)
}

// reduceDispatches returns the dispatches that reduce view l (its first
// element at base) of the buffer bound as in over its reduced dims into
// outputs elements of out, and the partials buffer they write between
// them, if any (the caller owns it with the job).
func (d *Device) reduceDispatches(op tensor.ReduceOp, dt tensor.DType, in binding, base int, l tensor.Layout, reduced []bool, out *wgpu.Buffer, outputs int) ([]dispatch, []*wgpu.Buffer, error) {
	shape, inSt, outSt := tensor.ReduceGeometry(l, reduced)
	var p params
	var kept, red int
	total := 1
	for i, n := range shape {
		if outSt[i] != 0 || n == 1 {
			if kept == maxRank {
				return nil, nil, fmt.Errorf("the reduce kernel takes at most %d kept dims after merging, %v has more", maxRank, shape)
			}
			p.shape[kept], p.strideA[kept], p.strideO[kept] = uint32(n), int32(inSt[i]), int32(outSt[i])
			kept++
			continue
		}
		if red == maxRank {
			return nil, nil, fmt.Errorf("the reduce kernel takes at most %d reduced dims after merging, %v has more", maxRank, shape)
		}
		p.aux[red], p.strideB[red] = uint32(n), int32(inSt[i])
		red++
		total *= n
	}
	limit := d.limits.MaxStorageBufferBindingSize
	vec, rvec := reduceVectors(shape, inSt, outSt, base)
	items := outputs / vec
	lanes, chunks, chunk := 1, 1, total
	maxChunks := int(limit / (4 * uint64(outputs)))
	if d.onCPU() {
		chunks, chunk = splitChunks(items, total, rvec, maxChunks)
	} else {
		if last := len(shape) - 1; total > 1 && last >= 0 && outSt[last] == 0 {
			// Lanes share an output when the innermost memory dim is reduced,
			// so they read it side by side; when it is kept, neighbouring
			// outputs already read neighbouring addresses.
			lanes = min(reduceLanes, 1<<bits.Len(uint(total/rvec-1)))
		}
		chunks, chunk = fillChunks(items, lanes, total, rvec, maxChunks)
	}
	p.count, p.baseA, p.reduced = uint32(items), uint32(base), uint32(total)
	p.split = [4]uint32{uint32(chunks), uint32(chunk)}
	key := programKey{kernel: kernelReduce, dtype: dt, rank: kept, red: red, vec: vec, rvec: rvec, op: op.String(), lanes: lanes,
		subgroups: lanes > 1 && d.subgroups}
	first := dispatch{
		key:     key,
		params:  p,
		storage: []binding{in, {buf: out, size: roundUp16(4 * uint64(outputs))}},
	}
	d.tile(&first, items*chunks, chunk)
	if chunks == 1 {
		if loads := total / rvec; lanes == 1 && loads <= maxFoldN {
			first.key.foldN = loads
		}
		return []dispatch{first}, nil, nil
	}
	first.key.split = true
	partialBytes := roundUp16(4 * uint64(chunks*outputs))
	partials, err := d.newBuffer("reduce partials", partialBytes, wgpu.BufferUsageStorage)
	if err != nil {
		return nil, nil, err
	}
	first.storage[1] = binding{buf: partials, size: partialBytes}
	// The partials are a [chunks][kept dims] tensor, row-major: reduce its
	// leading dim into the outputs.
	q := params{count: uint32(items), reduced: uint32(chunks), shape: p.shape, strideO: p.strideO, split: [4]uint32{1, uint32(chunks)}}
	q.aux[0], q.strideB[0] = uint32(chunks), int32(outputs)
	stride := 1
	for i := kept - 1; i >= 0; i-- {
		q.strideA[i] = int32(stride)
		stride *= int(p.shape[i])
	}
	second := dispatch{
		key:     programKey{kernel: kernelReduce, dtype: dt, rank: kept, red: 1, vec: vec, rvec: 1, op: op.String(), lanes: 1},
		params:  q,
		storage: []binding{{buf: partials, size: partialBytes}, {buf: out, size: roundUp16(4 * uint64(outputs))}},
	}
	d.tile(&second, items, chunks)
	return []dispatch{first, second}, []*wgpu.Buffer{partials}, nil
}

// tile lays a reduce dispatch of items items, each folding fold elements,
// out in tiles on a CPU adapter (TILED: no barriers, lanes take runs of
// items as the elementwise kernels do: as many as an elementwise dispatch
// of items would (Device.itemsPer) while they make at most
// foldLoadsPerInvocation loads) and in a grid-stride loop otherwise.
func (d *Device) tile(dp *dispatch, items, fold int) {
	if !d.onCPU() {
		dp.workgrps = workgroupsFor(items, workgroupSize/dp.key.lanes)
		return
	}
	dp.key.tiled = true
	dp.workgrps, dp.params.per = d.tilesOf(items, min(d.itemsPer(items), max(1, foldLoadsPerInvocation*dp.key.rvec/max(1, fold))))
}

// foldLoadsPerInvocation bounds the loads of a tiled reduce invocation's
// run of items. SwiftShader on 2 threads, sum [64,4,4096] to
// [64,1,4096] (4 loads an item): 0.66 of the copy kernel's rate at 8
// items per invocation, 0.84 at 16, 0.97 at 32; lavapipe, sum
// [1024,4,4096] to [1024,1,4096]: 1.07 to 1.11 at 16, 1.14 to 1.24 at
// 32 (same runs' copy kernels).
const foldLoadsPerInvocation = 128

// maxFoldN is the most loads per output a reduce pipeline writes out one
// by one instead of looping (its count is part of the pipeline's key).
const maxFoldN = 8

// A CPU adapter runs a reduction with few outputs in chunks, so that its
// items (chunks × outputs) keep every thread busy: splitItems of them,
// each chunk at least minChunk reduced elements long.
const (
	splitItems = 4096
	minChunk   = 1024
)

// splitChunks returns how many chunks each of items outputs' total
// reduced elements are cut into, and the chunk length (a multiple of
// rvec); at most maxChunks (what the partials' binding holds).
func splitChunks(items, total, rvec, maxChunks int) (chunks, chunk int) {
	return cutInto(total, min((splitItems+items-1)/items, total/minChunk, maxChunks), rvec)
}

// cutInto cuts total reduced elements into about chunks chunks whose
// length is a multiple of round: the chunks (1 and total when chunks is
// under 2) and the length.
func cutInto(total, chunks, round int) (int, int) {
	if chunks <= 1 {
		return 1, total
	}
	chunk := ((total+chunks-1)/chunks + round - 1) / round * round
	return (total + chunk - 1) / chunk, chunk
}

// splitDim returns the dim of l to halve when the reduction's input span
// or its output exceeds one storage binding: for the input the dim that
// spans the most memory ((size-1)·|stride|), for the output the largest
// kept dim. ok is false when the work fits, or no dim can be halved.
func (d *Device) splitDim(l tensor.Layout, reduced []bool, to tensor.Shape) (dim int, ok bool) {
	limit := d.limits.MaxStorageBufferBindingSize
	lo, hi := l.Span()
	outputs, _ := to.NumElements()
	inBytes := 4 * uint64(hi-lo+1+3) // +3: the pad that aligns the base for vec4 loads
	best, dim := 0, -1
	for k := range l.Rank() {
		n := l.Dim(k)
		var extent int
		switch {
		case n < 2:
			continue
		case inBytes > limit:
			extent = (n - 1) * max(l.Stride(k), -l.Stride(k))
		case 4*uint64(outputs) > limit && !reduced[k]:
			extent = n
		}
		if extent > best {
			best, dim = extent, k
		}
	}
	return dim, dim >= 0
}

// reduceSplit reduces src in two halves along dim d, the way package sbp
// reduces a split tensor: halves of a reduced dim each reduce to the full
// target and combine elementwise (S -> P, then P -> B); halves of a kept
// dim each produce their part of the target, concatenated.
func (g *GPU) reduceSplit(op tensor.ReduceOp, src tensor.Tensor, to tensor.Shape, reduced []bool, d int) (tensor.Tensor, error) {
	n, h := src.Layout().Dim(d), src.Layout().Dim(d)/2
	outDim := d + len(to) - src.Layout().Rank()
	parts := make([]tensor.Tensor, 2)
	for i, r := range [][2]int{{0, h}, {h, n}} {
		half, err := src.Narrow(d, r[0], r[1])
		if err != nil {
			return tensor.Tensor{}, err
		}
		target := to.Clone()
		if !reduced[d] {
			target[outDim] = r[1] - r[0]
		}
		if parts[i], err = g.Reduce(op, half, target); err != nil {
			return tensor.Tensor{}, err
		}
	}
	defer parts[0].Release()
	defer parts[1].Release()
	if reduced[d] {
		return g.Binary(op.Combiner(), parts[0], parts[1])
	}
	return tensor.Concat(outDim, parts...)
}

// reduceLanes is the most invocations that share one output on a GPU: a
// warp's worth, so the workgroup tree stays shallow.
const reduceLanes = 32

// fillInvocations is how many invocations a reduction dispatches at
// least on a GPU where its work allows: a quarter of an H200's resident
// threads (132 SMs × 2,048), so every SM has warps to switch between
// while loads are in flight. The H200 measured sum [64,256,1024] to
// [1,256,1] at 0.08 of its copy kernel with 256 outputs × 32 lanes
// (8,192 invocations, docs/performance.md).
const fillInvocations = 1 << 16

// minLaneLoads is the fewest loads each lane of a chunk makes: a chunk
// shorter than that spends more on its partial's write and the second
// pass than on its loads.
const minLaneLoads = 16

// fillChunks returns how many chunks each of items outputs' total
// reduced elements are cut into on a GPU, and the chunk length (a
// multiple of lanes·rvec, the elements one round of the lanes loads), so
// that items × chunks × lanes invocations reach fillInvocations: 1 and
// total where they already do, or where a chunk would give a lane fewer
// than minLaneLoads loads; at most maxChunks (what the partials' binding
// holds).
func fillChunks(items, lanes, total, rvec, maxChunks int) (chunks, chunk int) {
	if items*lanes >= fillInvocations {
		return 1, total
	}
	round := lanes * rvec
	return cutInto(total, min((fillInvocations+items*lanes-1)/(items*lanes), total/(round*minLaneLoads), maxChunks), round)
}

// reduceVectors picks vec4 loads for a reduction over the merged geometry
// (shape, input strides in, output strides out; base is the input's first
// element): vec 4 when the innermost memory dim is kept, contiguous and a
// multiple of 4 long (four neighbouring outputs per item), rvec 4 when it
// is reduced likewise (four reduced elements per load); 1, 1 otherwise.
// Every input stride and the base must be multiples of 4 so each load is
// one aligned vec4; for vec, every output stride too.
func reduceVectors(shape tensor.Shape, in, out []int, base int) (vec, rvec int) {
	last := len(shape) - 1
	if last < 0 || in[last] != 1 || shape[last]%4 != 0 || base%4 != 0 {
		return 1, 1
	}
	outAligned := true
	for d := range last {
		if in[d]%4 != 0 {
			return 1, 1
		}
		outAligned = outAligned && out[d]%4 == 0
	}
	switch {
	case out[last] == 0:
		return 1, 4
	case out[last] == 1 && outAligned:
		return 4, 1
	}
	return 1, 1
}
