package shaders

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// Gather looks up rows of table by ids with the gather_rows kernel
// (wgsl/gather_rows.wgsl), as tensor.CPU.Gather:
//
//	out[i, c] = table[ids[i] − lo, c]  where 0 ≤ ids[i] − lo < rows, else 0
//
// one invocation per output element, neighbouring invocations along a
// row. The ids are made contiguous on the host (they are small) and
// uploaded once; the table is read at its own strides (permuted,
// narrowed, expanded), its dims after the first coalesced, unless its
// span does not fit one storage binding or those dims do not coalesce to
// maxRank − 1: then it is gathered contiguous first (Materialize) and
// bound in windows of whole rows, a dispatch each (rowsOf). Outputs past
// one binding or one grid run in chunks (outChunks); a single row that
// does not fit a binding is an error naming its size.
func (g *GPU) Gather(table, ids tensor.Tensor, lo int) (tensor.Tensor, error) {
	shape, err := tensor.GatherOperands(table, ids, lo)
	if err != nil {
		return tensor.Tensor{}, err
	}
	label := fmt.Sprintf("gather rows of %v by ids %v from row %d", table.Shape(), ids.Shape(), lo)
	out, err := g.newResult(func() string { return label }, table.DType(), shape)
	if err != nil || out.NumElements() == 0 {
		return out, err
	}
	idv, err := tensor.CPU{}.Materialize(ids)
	if err != nil {
		out.Release()
		return tensor.Tensor{}, err
	}
	defer idv.Release()
	src, release, err := g.rowsOf(table, 1)
	if err != nil {
		out.Release()
		return tensor.Tensor{}, err
	}
	defer release()
	idBytes := tensor.RawBytes(idv)[:4*idv.NumElements()]
	return out, g.exec(label, out, func() (*job, error) {
		return g.dev.gatherJob(src, idBytes, ids.NumElements(), lo, out.NumElements())
	})
}

// gatherJob prepares the lookup of n ids (idBytes, contiguous int32)
// from row lo on in the table src into count outputs: a dispatch per
// chunk of outputs and window of the table's rows.
func (d *Device) gatherJob(src rowSource, idBytes []byte, n, lo, count int) (*job, error) {
	chunks, err := d.outChunks(count)
	if err != nil {
		return nil, err
	}
	windows, err := d.rowWindows(src, math.MaxInt)
	if err != nil {
		return nil, err
	}
	bufs, err := d.uploadEach([]string{"table", "ids"}, [][]byte{src.op.data, idBytes})
	if err != nil {
		return nil, err
	}
	outBuf, err := d.newBuffer("out", 4*uint64(count), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc)
	if err != nil {
		freeAll(bufs)
		return nil, err
	}
	bufs = append(bufs, outBuf)
	key := programKey{kernel: kernelGatherRows, dtype: src.dtype, rank: 1 + len(src.inner), vec: 1}
	p := src.params(n)
	p.aux[0], p.aux[1] = uint32(lo), uint32(src.rows())
	p.strideB[0] = int32(src.rowStride())
	align := d.align()
	var ds []dispatch
	for _, c := range chunks {
		first, last := c[0]/src.width, (c[1]-1)/src.width // the ids the chunk reads
		idStart := first / align * align
		idsAt := binding{buf: bufs[1], offset: 4 * uint64(idStart), size: 4 * uint64(last+1-idStart)}
		outAt, baseO := d.outBinding(outBuf, c[0], c[1])
		for _, w := range windows {
			q := p
			q.count, q.start, q.baseO = uint32(c[1]-c[0]), uint32(c[0]), baseO
			q.baseA = uint32(src.at(w.lo) - w.start)
			q.aux[2], q.aux[3], q.aux[4] = uint32(w.lo), uint32(w.hi), uint32(idStart)
			ds = append(ds, dispatch{key: key, params: q, workgrps: uint64((c[1] - c[0] + workgroupSize - 1) / workgroupSize),
				storage: []binding{{buf: bufs[0], offset: 4 * uint64(w.start), size: w.size}, idsAt, outAt}})
		}
	}
	return d.newJob(ds, outBuf, bufs...)
}

// rowSource is a tensor read a row at a time (Gather's table, ScatterAdd's
// values): its leading dims number the rows, the rest, coalesced over
// the output's contiguous strides, are a row's elements. Row r's first
// element is at at(r) in op's span. A whole source fits one storage
// binding and is read at its own strides; otherwise it is contiguous and
// bound in windows of whole rows (rowWindows).
type rowSource struct {
	dtype   tensor.DType
	op      operand
	lead    tensor.Shape // the dims that number the rows
	leadSt  []int
	width   int   // elements a row
	inner   []int // a row's dims, coalesced
	innerSt []int // their strides in the source
	whole   bool
}

// rowsOf returns t as a source of rows numbered by its first k dims:
// read at its own strides where its span fits one storage binding and
// its other dims coalesce to at most maxRank − 1, otherwise made
// contiguous (Materialize, unless it is) to be bound in windows. release
// frees what was materialized.
func (g *GPU) rowsOf(t tensor.Tensor, k int) (src rowSource, release func(), err error) {
	l := t.Layout()
	full := l.Shape()
	inner, st := tensor.Coalesce(full[k:], tensor.ContiguousStrides(full[k:]), l.Strides()[k:])
	width, _ := full[k:].NumElements()
	src = rowSource{dtype: t.DType(), op: spanOf(t, l), lead: full[:k], leadSt: l.Strides()[:k], width: width, inner: inner, innerSt: st[1]}
	release = func() {}
	if roundUp16(uint64(len(src.op.data))) <= g.dev.limits.MaxStorageBufferBindingSize && 1+len(inner) <= maxRank {
		src.whole = true
		return src, release, nil
	}
	if !l.IsContiguous() {
		m, err := g.Materialize(t)
		if err != nil {
			return rowSource{}, nil, err
		}
		release = m.Release
		src.op = spanOf(m, m.Layout())
	}
	cs, cst := tensor.Coalesce(tensor.Shape{width}, []int{1})
	src.inner, src.innerSt = cs, cst[0]
	return src, release, nil
}

// rows is how many rows s has.
func (s rowSource) rows() int {
	n, _ := s.lead.NumElements()
	return n
}

// rowStride is the elements from one row to the next along a single
// leading dim: its stride, or the row's width once contiguous.
func (s rowSource) rowStride() int {
	if s.whole && len(s.leadSt) == 1 {
		return s.leadSt[0]
	}
	return s.width
}

// at is the element offset of row r's first element in s's span: base +
// Σ_d r_d·leadSt[d] over r's coordinates in lead, or base + r·width once
// contiguous.
func (s rowSource) at(r int) int {
	if !s.whole {
		return s.op.base + r*s.width
	}
	off := s.op.base
	for d := len(s.lead) - 1; d >= 0 && r > 0; d-- {
		off += r % s.lead[d] * s.leadSt[d]
		r /= s.lead[d]
	}
	return off
}

// params returns the Params that the row kernels share: shape = [n, a
// row's dims], stride_a their strides in the source (0 on dim 0).
func (s rowSource) params(n int) params {
	var p params
	p.shape[0] = uint32(n)
	for d, m := range s.inner {
		p.shape[1+d], p.strideA[1+d] = uint32(m), int32(s.innerSt[d])
	}
	return p
}

// rowWindow is rows lo … hi−1 of a rowSource bound from element start,
// size bytes.
type rowWindow struct {
	lo, hi, start int
	size          uint64
}

// rowWindows cuts s's rows into windows of at most most rows: the whole
// span in each when it fits one binding, otherwise as many contiguous
// rows as one binding holds from an aligned start. There is always one
// window, empty when s has no rows.
func (d *Device) rowWindows(s rowSource, most int) ([]rowWindow, error) {
	n := s.rows()
	per, whole := most, roundUp16(uint64(len(s.op.data)))
	if !s.whole {
		limit, align := d.limits.MaxStorageBufferBindingSize, d.align()
		if per = min(most, (int(limit/4)-align)/s.width); per < 1 {
			return nil, tooLarge(fmt.Sprintf("a row of %d elements from an aligned offset", s.width), 4*uint64(s.width+align), limit)
		}
	}
	var ws []rowWindow
	for lo := 0; lo < n; lo += per {
		w := rowWindow{lo: lo, hi: min(lo+per, n), size: whole}
		if !s.whole {
			w.start = s.at(lo) / d.align() * d.align()
			w.size = 4 * uint64(s.at(w.hi-1)+s.width-w.start)
		}
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		ws = []rowWindow{{size: whole}}
	}
	return ws, nil
}

// align is MinStorageBufferOffsetAlignment in 4-byte elements: where a
// binding of part of a buffer may start.
func (d *Device) align() int { return max(1, int(d.limits.MinStorageBufferOffsetAlignment)/4) }

// outChunks cuts count contiguous outputs into the runs [s, e) that one
// dispatch of a kernel taking one output per invocation covers: each
// bound from the aligned element before s within one storage binding,
// its workgroups within the 2-D grid's limit² (main_item.wgsl does not
// loop), its indices u32.
func (d *Device) outChunks(count int) ([][2]int, error) {
	if uint64(count) > math.MaxUint32 {
		return nil, tooLarge(fmt.Sprintf("an output of %d elements (u32 indices)", count), 4*uint64(count), 4*math.MaxUint32)
	}
	limit := d.limits.MaxStorageBufferBindingSize
	n := int(limit/4) - d.align()
	if n < 1 {
		return nil, tooLarge("one output from an aligned offset", 4*uint64(d.align()+1), limit)
	}
	grid := uint64(d.limits.MaxComputeWorkgroupsPerDimension)
	n = int(min(uint64(n), grid*grid*workgroupSize))
	var cs [][2]int
	for s := 0; s < count; s += n {
		cs = append(cs, [2]int{s, min(s+n, count)})
	}
	return cs, nil
}

// outBinding binds outputs [s, e) of out from the aligned element before
// s, and returns s's index in the binding (Params.base_o).
func (d *Device) outBinding(out *wgpu.Buffer, s, e int) (binding, uint32) {
	start := s / d.align() * d.align()
	return binding{buf: out, offset: 4 * uint64(start), size: 4 * uint64(e-start)}, uint32(s - start)
}

// uploadEach uploads each of data into a storage buffer of its own,
// labelled by labels.
func (d *Device) uploadEach(labels []string, data [][]byte) ([]*wgpu.Buffer, error) {
	var bufs []*wgpu.Buffer
	for k, b := range data {
		buf, err := d.upload(labels[k], b)
		if err != nil {
			freeAll(bufs)
			return nil, err
		}
		bufs = append(bufs, buf)
	}
	return bufs, nil
}

// u32Bytes is v as little-endian bytes, for upload.
func u32Bytes(v []uint32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}
