package shaders

import (
	"fmt"
	"math"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// elementwise is one gather, repeat or binary call over coalesced output
// dims: out[i] = f(operands at base + Σ_d i_d·stride[d]) (repeat: source
// coordinate i_d mod aux[d]).
type elementwise struct {
	kernel  kernel
	op      string
	dtype   tensor.DType
	shape   []int   // coalesced output dims, row-major
	aux     []int   // repeat: source dims
	strides [][]int // per operand, over shape
	ops     []operand
}

// loads picks the vector width: four outputs per invocation when the inner
// dim holds whole vec4s and every operand reads its inner row either
// contiguously from a 4-aligned offset (vec4) or not at all (stride 0, a
// splat); one output per invocation otherwise.
func (e *elementwise) loads() (vec int, l []load) {
	l = make([]load, len(e.ops))
	last := len(e.shape) - 1
	if last < 0 || e.shape[last]%4 != 0 {
		return 1, l
	}
	for k, st := range e.strides {
		switch {
		case st[last] == 0 || (e.kernel == kernelRepeat && e.aux[last] == 1):
			l[k] = loadSplat
		case st[last] == 1 && e.ops[k].base%4 == 0 && (e.kernel != kernelRepeat || e.aux[last]%4 == 0):
			for _, s := range st[:last] {
				if s%4 != 0 {
					return 1, make([]load, len(e.ops))
				}
			}
			l[k] = loadVec4
		default:
			return 1, make([]load, len(e.ops))
		}
	}
	return 4, l
}

// uniformLoads turns the vec4 loads of operands that fit a uniform
// binding (uniformBytes) and one storage binding (limit: so chunks never
// window them) into uniform loads. lavapipe reads a storage
// buffer lane by lane, a loop with a branch for every element of every
// lane, but a uniform buffer with one vector gather: add
// [1024,1,4096]+[1,4,4096], whose b takes 4 of the 24 loads and stores
// of a 4 × 4 block, took 10.3 to 11.1 ms with b in a uniform binding
// against 11.5 to 12.3 in a storage one (fastest of 15 rounds, three
// runs; the copy kernel of the same bytes 9.5 to 9.9). On a GPU, lanes
// reading different addresses of a uniform binding take turns, so only
// TuneCPU asks.
func (e *elementwise) uniformLoads(l []load, limit uint64) {
	for k, op := range e.ops {
		if n := uint64(len(op.data)); l[k] == loadVec4 && n <= uniformBytes && n <= limit {
			l[k] = loadUniform
		}
	}
}

// job prepares e's count outputs (contiguous), splitting them into
// chunks whose bindings respect the device limits. count is at least 1.
func (d *Device) elementwiseJob(e elementwise, count int) (*job, error) {
	if len(e.shape) > maxRank {
		return nil, fmt.Errorf("the kernels take at most %d dims after coalescing, this %s has %d (%v)", maxRank, e.kernel, len(e.shape), e.shape)
	}
	if uint64(count) > math.MaxUint32 {
		return nil, tooLarge(fmt.Sprintf("an output of %d elements (u32 indices)", count), 4*uint64(count), 4*math.MaxUint32)
	}
	vec, loads := e.loads()
	limit := d.limits.MaxStorageBufferBindingSize
	if d.tuning == TuneCPU {
		e.uniformLoads(loads, limit)
	}
	align := max(vec, int(d.limits.MinStorageBufferOffsetAlignment)/4) // elements
	chunk := int(limit/4) - align                                      // outputs one binding takes from any start
	if chunk < vec {
		return nil, tooLarge("one aligned chunk", uint64(4*(align+vec)), limit)
	}
	chunk = chunk / vec * vec
	bufs, err := d.uploadAll(e.ops, loads)
	if err != nil {
		return nil, err
	}
	outBuf, err := d.newBuffer("out", 4*uint64(count), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc)
	if err != nil {
		freeAll(bufs)
		return nil, err
	}
	bufs = append(bufs, outBuf)
	key := programKey{kernel: e.kernel, dtype: e.dtype, rank: len(e.shape), vec: vec, op: e.op, a: loads[0]}
	if len(loads) > 1 {
		key.b = loads[1]
	}
	// Work that fits one binding per operand runs as one dispatch, walked
	// on an op-bound adapter or fanned, where its dims allow.
	if e.fitsOneBinding(count, limit) {
		if dp, ok := d.walkDispatch(&e, key, vec, bufs, outBuf, count); ok {
			return d.newJob([]dispatch{dp}, outBuf, bufs...)
		}
		if fp, ok := e.fan(d.fanBudget(e.kernel, count/vec)); ok {
			dp := fp.dispatch(e.shape, key, vec, bufs, outBuf, count)
			items, _ := tensor.Shape(fp.e.shape).NumElements()
			dp.params.count = uint32(items / vec)
			dp.workgrps, dp.params.per, dp.key.rowRuns = d.elementwiseTiles(&fp.e, items/vec, vec, 0)
			return d.newJob([]dispatch{dp}, outBuf, bufs...)
		}
	}
	var ds []dispatch
	for s := 0; s < count; {
		n, windows, err := e.chunkAt(s, min(chunk, count-s), vec, align, limit)
		if err != nil {
			freeAll(bufs)
			return nil, err
		}
		dp := e.dispatch(key, vec, bufs, windows)
		dp.workgrps, dp.params.per, dp.key.rowRuns = d.elementwiseTiles(&e, n/vec, vec, s)
		dp.params.count, dp.params.start = uint32(n/vec), uint32(s)
		// The output binding starts at the aligned element before s.
		outStart := s / align * align
		dp.params.baseO = uint32((s - outStart) / vec)
		dp.storage = append(dp.storage, binding{buf: outBuf, offset: 4 * uint64(outStart), size: 4 * uint64(s+n-outStart)})
		ds = append(ds, dp)
		s += n
	}
	return d.newJob(ds, outBuf, bufs...)
}

// elementwiseTiles returns the workgroups and items per invocation
// (Device.itemsPer, raised to fit the grid) of a dispatch of e's items
// work items from element start, and whether they run in rows (rowRuns).
// An invocation takes fewer items where more would break the rows that
// itemsPerInvocation keeps: stepping coordinates costs more than the
// invocations saved.
func (d *Device) elementwiseTiles(e *elementwise, items, vec, start int) (uint64, uint32, bool) {
	per := d.itemsPer(items)
	if e.rowRuns(vec, itemsPerInvocation, start) {
		for per > itemsPerInvocation && !e.rowRuns(vec, per, start) {
			per /= 2
		}
	}
	groups, p := d.tilesOf(items, per)
	return groups, p, e.rowRuns(vec, int(p), start)
}

// rowRuns reports whether every lane's items (runs of groupLanes·per
// items from multiples of that, counted from element start) lie in one row
// of the inner dim, which a repeat must not repeat: the kernel then steps
// offsets, not coordinates (ROW_RUNS in wgsl/prelude.wgsl).
func (e *elementwise) rowRuns(vec, per, start int) bool {
	last := len(e.shape) - 1
	run := groupLanes * per * vec
	return last >= 0 && e.shape[last]%run == 0 && start%run == 0 &&
		(e.kernel != kernelRepeat || e.aux[last] == e.shape[last])
}

// fitsOneBinding reports whether count outputs and every operand fit one
// binding each: one dispatch then covers the call.
func (e *elementwise) fitsOneBinding(count int, limit uint64) bool {
	for _, op := range e.ops {
		if roundUp16(uint64(len(op.data))) > limit {
			return false
		}
	}
	return roundUp16(4*uint64(count)) <= limit
}

// dispatch returns a dispatch of e's geometry with its operands bound:
// through windows, or whole when windows is nil. The caller sets the
// count, start and output.
func (e *elementwise) dispatch(key programKey, vec int, bufs []*wgpu.Buffer, windows []inputWindow) dispatch {
	dp := dispatch{key: key}
	for i, v := range e.shape {
		dp.params.shape[i] = uint32(v)
		if e.aux != nil {
			dp.params.aux[i] = uint32(e.aux[i])
		}
	}
	for k, op := range e.ops {
		w := inputWindow{0, roundUp16(uint64(len(op.data)))}
		if windows != nil {
			w = windows[k]
		}
		if [2]load{key.a, key.b}[k] == loadUniform {
			w = inputWindow{0, uniformBytes}
		}
		dp.storage = append(dp.storage, binding{buf: bufs[k], offset: 4 * uint64(w.start), size: w.bytes})
		base := uint32(op.base - w.start)
		st := &dp.params.strideA
		if k == 0 {
			dp.params.baseA = base
		} else {
			dp.params.baseB, st = base, &dp.params.strideB
		}
		for i, v := range e.strides[k] {
			st[i] = int32(v)
		}
	}
	return dp
}

// inputWindow is the part of an uploaded operand one chunk binds.
type inputWindow struct {
	start int    // first element, aligned for a binding offset
	bytes uint64 // binding size
}

// chunkAt returns how many outputs from s (at most n, a multiple of vec)
// one dispatch takes and the input windows they read. While a window
// exceeds the binding limit the chunk shrinks: cut at the first row
// boundary inside it, where its coordinates stop sharing a prefix, or else
// halved.
func (e *elementwise) chunkAt(s, n, vec, align int, limit uint64) (int, []inputWindow, error) {
	for {
		windows, need, k := e.windows(s, s+n, align, limit)
		if need == 0 {
			return n, windows, nil
		}
		if cut := e.rowCut(s, s+n, vec); cut > 0 && cut < n {
			n = cut
		} else if n > vec {
			n = max(vec, n/2/vec*vec)
		} else {
			return 0, nil, tooLarge(fmt.Sprintf("%d outputs from index %d read a span of operand %d that", n, s, k), need, limit)
		}
	}
}

// rowCut returns how many outputs from s stay in s's row of the outermost
// dim whose coordinate differs between s and end-1 (for repeat: in s's
// period of that dim, where the source coordinate wraps), rounded down to
// whole vec4s; 0 if there is no such cut.
func (e *elementwise) rowCut(s, end, vec int) int {
	first, last := coords(e.shape, s), coords(e.shape, end-1)
	for d := range e.shape {
		if first[d] == last[d] {
			continue
		}
		row := 1
		for _, m := range e.shape[d+1:] {
			row *= m
		}
		if row == 1 && e.kernel == kernelRepeat {
			row = e.aux[d]
		}
		return ((s/row+1)*row - s) / vec * vec
	}
	return 0
}

// windows returns each operand's window for outputs [s, end); when one
// exceeds limit it returns its size and operand index instead.
func (e *elementwise) windows(s, end, align int, limit uint64) ([]inputWindow, uint64, int) {
	var ws []inputWindow
	for k, op := range e.ops {
		whole := roundUp16(uint64(len(op.data)))
		if whole <= limit {
			ws = append(ws, inputWindow{0, whole})
			continue
		}
		lo, hi := e.span(k, s, end)
		start := lo / align * align
		size := min(roundUp16(4*uint64(hi+1-start)), whole-4*uint64(start))
		if size > limit {
			return nil, size, k
		}
		ws = append(ws, inputWindow{start, size})
	}
	return ws, 0, 0
}

// span returns the lowest and highest element of operand k that outputs
// [s, end) read. Dims outside the first dim where the coordinates of s and
// end-1 differ are fixed, that dim ranges between them, inner dims range in
// full. Repeat reads source coordinate i mod aux, which is a sub-range
// unless it wraps.
func (e *elementwise) span(k, s, end int) (lo, hi int) {
	first, last := coords(e.shape, s), coords(e.shape, end-1)
	lo, hi = e.ops[k].base, e.ops[k].base
	differ := false
	for d := range e.shape {
		a, b := first[d], last[d]
		if differ {
			a, b = 0, e.shape[d]-1
		}
		differ = differ || a != b
		if e.kernel == kernelRepeat {
			if n := e.aux[d]; b-a+1 >= n || a%n > b%n {
				a, b = 0, n-1
			} else {
				a, b = a%n, b%n
			}
		}
		x, y := a*e.strides[k][d], b*e.strides[k][d]
		lo += min(x, y)
		hi += max(x, y)
	}
	return lo, hi
}

// coords returns the row-major coordinates of linear index i in shape.
func coords(shape []int, i int) []int {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		c[d] = i % shape[d]
		i /= shape[d]
	}
	return c
}
