package shaders

import (
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// ScatterAdd sums the rows of src by ids into rows rows with the
// scatter_add kernel (wgsl/scatter_add.wgsl), as tensor.CPU.ScatterAdd:
//
//	out[r, c] = Σ over i with ids[i] = lo + r of src[i, c]
//
// deterministically, in the order of i. The ids are read back to the
// host (they are small), where tensor.RowsOfIds lists each row's
// positions; the lists go to the device as compressed rows (an offset
// per row into the positions' rows of values in src), and one invocation
// per output element sums its row's values in order, in f32: O(rows·width
// + ids·width) work, whatever the ids. src is read at its own strides
// (its dims after ids' coalesced) unless its span does not fit one
// storage binding or those dims do not coalesce to maxRank − 1: then it
// is made contiguous first (Materialize) and bound in windows of
// positions, a dispatch each in order of i, each after the first adding
// to what out holds (so the sum keeps its order). Outputs past one
// binding or one grid run in chunks (outChunks).
func (g *GPU) ScatterAdd(src, ids tensor.Tensor, lo, rows int) (tensor.Tensor, error) {
	shape, err := tensor.ScatterAddOperands(src, ids, lo, rows)
	if err != nil {
		return tensor.Tensor{}, err
	}
	label := fmt.Sprintf("scatter-add %v by ids %v into rows %d … %d", src.Shape(), ids.Shape(), lo, lo+rows-1)
	out, err := g.newResult(func() string { return label }, tensor.Float32, shape)
	if err != nil || out.NumElements() == 0 {
		return out, err
	}
	idv, err := tensor.CPU{}.Materialize(ids)
	if err != nil {
		out.Release()
		return tensor.Tensor{}, err
	}
	defer idv.Release()
	v, _ := tensor.Buffer[int32](idv)
	lists := tensor.RowsOfIds(v[:idv.NumElements()], lo, rows)
	values, release, err := g.rowsOf(src, ids.Layout().Rank())
	if err != nil {
		out.Release()
		return tensor.Tensor{}, err
	}
	defer release()
	return out, g.exec(label, out, func() (*job, error) { return g.dev.scatterAddJob(values, lists, out.NumElements()) })
}

// scatterAddJob prepares the sums into count outputs of the rows of src
// (one per position of the ids) that each output row's list names: a
// dispatch per chunk of outputs and window of positions, with the
// compressed rows of that pair.
func (d *Device) scatterAddJob(src rowSource, lists [][]int32, count int) (*job, error) {
	chunks, err := d.outChunks(count)
	if err != nil {
		return nil, err
	}
	// At most a binding's worth of positions a window: each dispatch
	// binds its windows' positions' offsets (rows_at).
	windows, err := d.rowWindows(src, int(d.limits.MaxStorageBufferBindingSize/4))
	if err != nil {
		return nil, err
	}
	in, err := d.upload("values", src.op.data)
	if err != nil {
		return nil, err
	}
	outBuf, err := d.newBuffer("out", 4*uint64(count), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc)
	if err != nil {
		free(in)
		return nil, err
	}
	owned := []*wgpu.Buffer{in, outBuf}
	key := programKey{kernel: kernelScatterAdd, dtype: tensor.Float32, rank: 1 + len(src.inner), vec: 1}
	p := src.params(len(lists))
	var ds []dispatch
	for _, c := range chunks {
		r0, r1 := c[0]/src.width, (c[1]-1)/src.width+1 // the rows the chunk writes
		next := make([]int, r1-r0)                     // per row, its first position past the windows so far
		outAt, baseO := d.outBinding(outBuf, c[0], c[1])
		for k, w := range windows {
			firsts := make([]uint32, 0, r1-r0+1)
			var at []uint32
			for r := r0; r < r1; r++ {
				firsts = append(firsts, uint32(len(at)))
				list, j := lists[r], next[r-r0]
				for ; j < len(list) && int(list[j]) < w.hi; j++ {
					at = append(at, uint32(src.at(int(list[j]))-w.start))
				}
				next[r-r0] = j
			}
			firsts = append(firsts, uint32(len(at)))
			if k > 0 && len(at) == 0 {
				continue // adds nothing to these outputs
			}
			bufs, err := d.uploadEach([]string{"row firsts", "rows at"}, [][]byte{u32Bytes(firsts), u32Bytes(at)})
			if err != nil {
				freeAll(owned)
				return nil, err
			}
			owned = append(owned, bufs...)
			q := p
			q.count, q.start, q.baseO = uint32(c[1]-c[0]), uint32(c[0]), baseO
			q.aux[0] = uint32(r0)
			if k > 0 {
				q.aux[1] = 1 // add to the earlier windows' sums
			}
			ds = append(ds, dispatch{key: key, params: q, workgrps: uint64((c[1] - c[0] + workgroupSize - 1) / workgroupSize),
				storage: []binding{{buf: in, offset: 4 * uint64(w.start), size: w.size},
					{buf: bufs[0], size: roundUp16(4 * uint64(len(firsts)))}, {buf: bufs[1], size: roundUp16(4 * uint64(len(at)))}, outAt}})
		}
	}
	return d.newJob(ds, outBuf, owned...)
}
