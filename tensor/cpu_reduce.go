package tensor

import (
	"math"
	"sort"
	"sync"

	"github.com/stridelab/stridelab/tensor/internal/simd"
)

// accum is the accumulator type of a reduction: float64 for float32 sums
// (so long sums keep their digits), the element type otherwise (integer sums
// wrap modulo 2^32, as NumPy's sum(dtype=int32) and WGSL do).
type accum interface {
	float32 | float64 | int32 | uint32
}

// reduceBlock bounds the inner kept row a worker accumulates at once, so its
// accumulators (8 bytes each) stay in L1 cache: 2048·8 B = 16 KiB.
const reduceBlock = 2048

// reduceStrided is the broadcast-reduce kernel. Its reference loop:
//
//	dst[j] = identity(op)
//	for each index i of src: j = out index of i (0 on reduced dims)
//	    dst[j] = op(dst[j], s[src.Offset(i)])
//
// The dims are first put in memory order and merged (ReduceGeometry).
// Kept dims are then walked outermost, each output element or block owned
// by one goroutine; under them the reduced dims are walked, and if the innermost src dim is kept, each reduced row is added
// to a block of accumulators (vector style), else it is folded into one.
func reduceStrided[T Elem, A accum](op ReduceOp, dst, s []T, src Layout, reduced []bool) {
	if len(dst) == 0 {
		return
	}
	shape, in, out := ReduceGeometry(src, reduced)
	id := identity[A](op)
	if src.NumElements() == 0 {
		fill(dst, T(id))
		return
	}
	if streamable(shape, out, len(dst)) {
		reduceStreaming(op, dst, s, shape, in, out, src.base, id)
		return
	}
	r := newReduction[T, A](op, shape, in, out, src.base, id)
	r.stream = len(dst)*4 >= streamBytes
	workers := 1
	if src.NumElements() >= parallelGrain {
		workers = maxWorkers()
	}
	if r.kRows >= workers {
		parallelFor(r.kRows, src.NumElements(), func(lo, hi int) {
			acc := make([]A, r.block)
			kIt := r.kIter()
			kIt.seek(lo)
			for k := lo; k < hi; k++ {
				r.run(dst, s, kIt, acc, 0, r.rRows)
				kIt.next()
			}
			if r.stream {
				simd.Fence()
			}
		})
		return
	}
	// Few outputs, much input: split the reduced rows and merge partials.
	for k := 0; k < r.kRows; k++ {
		var mu sync.Mutex
		total := make([]A, r.block)
		fill(total, id)
		parallelFor(r.rRows, src.NumElements(), func(lo, hi int) {
			acc := make([]A, r.block)
			kIt := r.kIter()
			kIt.seek(k)
			n := r.accumulate(s, kIt, acc, lo, hi)
			mu.Lock()
			combineInto(op, total[:n], acc[:n])
			mu.Unlock()
		})
		kIt := r.kIter()
		kIt.seek(k)
		r.store(dst, kIt, total)
	}
}

// streamLimit bounds the outputs of a streaming reduce: each goroutine keeps
// its own accumulator per output, 64 Ki·8 B = 512 KiB, about an L2 cache.
const streamLimit = 1 << 16

// streamable reports whether a coalesced reduce should stream its input in
// memory order: its innermost dim is reduced, some reduced dim lies outside
// a kept dim (so walking outputs first would jump between far-apart rows)
// and the output is small enough for private accumulators.
func streamable(shape Shape, out []int, outputs int) bool {
	last := len(shape) - 1
	if last < 1 || out[last] != 0 || outputs > streamLimit {
		return false
	}
	for d := 0; d < last; d++ {
		if out[d] == 0 {
			for _, o := range out[d+1 : last] {
				if o != 0 {
					return true
				}
			}
		}
	}
	return false
}

// reduceStreaming walks the input rows in memory order, folding each row
// into its output's accumulator; goroutines take contiguous runs of rows
// with private accumulators, merged at the end.
func reduceStreaming[T Elem, A accum](op ReduceOp, dst, s []T, shape Shape, in, out []int, base int, id A) {
	last := len(shape) - 1
	rowLen, rowStride := shape[last], in[last]
	total := make([]A, len(dst))
	fill(total, id)
	var mu sync.Mutex
	rows := product(shape[:last])
	parallelFor(rows, rows*rowLen, func(lo, hi int) {
		acc := make([]A, len(dst))
		fill(acc, id)
		od := newOdometer(shape[:last], [][]int{in[:last], out[:last]}, []int{base, 0})
		od.seek(lo)
		for r := lo; r < hi; r++ {
			o := od.off[1]
			acc[o] = combine(op, acc[o], foldRow[T, A](op, s, od.off[0], rowLen, rowStride, id))
			od.next()
		}
		mu.Lock()
		combineInto(op, total, acc)
		mu.Unlock()
	})
	for j, v := range total {
		dst[j] = T(v)
	}
}

// reduction is a coalesced reduce split into kept dims (K, walked outer),
// reduced dims (R) and an optional innermost kept dim cut in blocks.
type reduction[T Elem, A accum] struct {
	op ReduceOp
	id A
	// K: kept outer dims, plus the block index of the inner kept dim.
	kShape, kIn, kOut []int
	kRows             int
	// R: reduced dims; in mode "row fold" the last one is the folded row.
	rShape, rIn []int
	rRows       int
	rowLen      int // folded row length (fold mode), 1 in vector mode
	rowStride   int
	// Inner kept dim (vector mode): length, strides, block size.
	vector            bool
	inner             int
	innerIn, innerOut int
	block             int
	base              int
	// Vector mode over at most four reduced rows, both inner strides 1:
	// the rows' offsets from the K row's start (see foldFew).
	fewRows []int
	// stream: foldFew may write dst around the cache (see streamBytes).
	stream bool
}

func newReduction[T Elem, A accum](op ReduceOp, shape Shape, in, out []int, base int, id A) *reduction[T, A] {
	r := &reduction[T, A]{op: op, id: id, base: base, rowLen: 1, block: 1}
	last := len(shape) - 1
	r.vector = last >= 0 && out[last] != 0
	for d := range shape {
		switch {
		case r.vector && d == last:
		case out[d] != 0:
			r.kShape, r.kIn, r.kOut = append(r.kShape, shape[d]), append(r.kIn, in[d]), append(r.kOut, out[d])
		default:
			r.rShape, r.rIn = append(r.rShape, shape[d]), append(r.rIn, in[d])
		}
	}
	if r.vector {
		r.inner, r.innerIn, r.innerOut = shape[last], in[last], out[last]
		r.block = min(r.inner, reduceBlock)
		blocks := (r.inner + r.block - 1) / r.block
		// The block index is one more K dim: block b starts at b·block.
		r.kShape = append(r.kShape, blocks)
		r.kIn = append(r.kIn, r.block*r.innerIn)
		r.kOut = append(r.kOut, r.block*r.innerOut)
	} else if n := len(r.rShape); n > 0 {
		r.rowLen, r.rowStride = r.rShape[n-1], r.rIn[n-1]
		r.rShape, r.rIn = r.rShape[:n-1], r.rIn[:n-1]
	}
	r.kRows, r.rRows = product(r.kShape), product(r.rShape)
	if r.vector && r.rRows <= 4 && r.innerIn == 1 && r.innerOut == 1 {
		rIt := newOdometer(r.rShape, [][]int{r.rIn}, []int{0})
		for range r.rRows {
			r.fewRows = append(r.fewRows, rIt.off[0])
			rIt.next()
		}
	}
	return r
}

func product(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

func (r *reduction[T, A]) kIter() *odometer {
	return newOdometer(r.kShape, [][]int{r.kIn, r.kOut}, []int{r.base, 0})
}

// blockLen returns how many inner elements K row k covers (the last block
// of the inner dim may be short).
func (r *reduction[T, A]) blockLen(kIt *odometer) int {
	if !r.vector {
		return 1
	}
	b := kIt.idx[len(kIt.idx)-1]
	return min(r.block, r.inner-b*r.block)
}

// run reduces the K row at kIt over R rows [lo, hi) and stores the result.
func (r *reduction[T, A]) run(dst, s []T, kIt *odometer, acc []A, lo, hi int) {
	if r.fewRows != nil && lo == 0 && hi == r.rRows {
		r.foldFew(dst, s, kIt)
		return
	}
	r.accumulate(s, kIt, acc, lo, hi)
	r.store(dst, kIt, acc)
}

// foldFew reduces a vector block over at most four contiguous reduced rows
// straight into dst, skipping the accumulators' round trip through memory
// (reducing [1024,4,4096] over dim 1 spent a third of its time there). The
// arithmetic is accumulate's followed by store's, so results are identical.
func (r *reduction[T, A]) foldFew(dst, s []T, kIt *odometer) {
	n := r.blockLen(kIt)
	out := dst[kIt.off[1]:][:n]
	var rows [4][]T
	for i, off := range r.fewRows {
		rows[i] = s[kIt.off[0]+off:][:n]
	}
	if len(r.fewRows) == 4 && r.op == Sum {
		// each row resliced to out's length: the loop then runs without
		// bounds checks (three a step before)
		r0, r1, r2, r3 := rows[0][:len(out)], rows[1][:len(out)], rows[2][:len(out)], rows[3][:len(out)]
		if o, ok := any(out).([]float32); ok && simd.Sum4(o, any(r0).([]float32), any(r1).([]float32), any(r2).([]float32), any(r3).([]float32), r.stream) {
			return // the same sums, in package simd's assembly
		}
		var zero T // the identity: the sum, widened to A, plus 0 and narrowed back, is the sum plus 0 in T
		for j := range out {
			out[j] = (r0[j] + r1[j]) + (r2[j] + r3[j]) + zero // pairwise in T, as foldVector
		}
		return
	}
	for j := range out {
		a := r.id
		for _, row := range rows[:len(r.fewRows)] {
			a = combine(r.op, a, A(row[j]))
		}
		out[j] = T(a)
	}
}

// accumulate resets acc to the identity and folds R rows [lo, hi) of the K
// row at kIt into it; it returns how many accumulators are in use.
func (r *reduction[T, A]) accumulate(s []T, kIt *odometer, acc []A, lo, hi int) int {
	n := r.blockLen(kIt)
	acc = acc[:n]
	fill(acc, r.id)
	rIt := newOdometer(r.rShape, [][]int{r.rIn}, []int{kIt.off[0]})
	rIt.seek(lo)
	if !r.vector {
		for row := lo; row < hi; row++ {
			acc[0] = combine(r.op, acc[0], foldRow[T, A](r.op, s, rIt.off[0], r.rowLen, r.rowStride, r.id))
			rIt.next()
		}
		return n
	}
	// Vector mode: fold rows four at a time, so each pass over the
	// accumulators consumes four input rows (and sums pair up first).
	var offs [4]int
	for row := lo; row < hi; {
		k := 0
		for ; k < 4 && row < hi; k, row = k+1, row+1 {
			offs[k] = rIt.off[0]
			rIt.next()
		}
		foldVector(r.op, acc, s, offs[:k], r.innerIn)
	}
	return n
}

func (r *reduction[T, A]) store(dst []T, kIt *odometer, acc []A) {
	n := r.blockLen(kIt)
	o := kIt.off[1]
	if r.innerOut == 1 || n == 1 {
		out := dst[o : o+n]
		for j := range out {
			out[j] = T(acc[j])
		}
		return
	}
	for j := 0; j < n; j++ {
		dst[o+j*r.innerOut] = T(acc[j])
	}
}

func combine[A accum](op ReduceOp, x, y A) A {
	switch op {
	case Sum:
		return x + y
	case MaxAll:
		return max(x, y)
	default:
		return min(x, y)
	}
}

func combineInto[A accum](op ReduceOp, acc, part []A) {
	for j := range acc {
		acc[j] = combine(op, acc[j], part[j])
	}
}

// foldVector folds the rows starting at offs (one to four of them) into
// the accumulators: acc[j] = op(acc[j], s[off + j·stride]) for each off.
func foldVector[T Elem, A accum](op ReduceOp, acc []A, s []T, offs []int, stride int) {
	n := len(acc)
	if stride != 1 {
		for _, off := range offs {
			for j := range acc {
				acc[j] = combine(op, acc[j], A(s[off+j*stride]))
			}
		}
		return
	}
	if len(offs) == 4 && op == Sum {
		r0, r1, r2, r3 := s[offs[0]:offs[0]+n], s[offs[1]:offs[1]+n], s[offs[2]:offs[2]+n], s[offs[3]:offs[3]+n]
		for j := range acc {
			acc[j] += A((r0[j] + r1[j]) + (r2[j] + r3[j])) // pairwise in T, one widening
		}
		return
	}
	for _, off := range offs {
		row := s[off : off+n]
		switch op {
		case Sum:
			for j := range acc {
				acc[j] += A(row[j])
			}
		case MaxAll:
			for j := range acc {
				acc[j] = max(acc[j], A(row[j]))
			}
		default:
			for j := range acc {
				acc[j] = min(acc[j], A(row[j]))
			}
		}
	}
}

// sumBlock is NumPy's pairwise-summation block: 128 elements summed in
// eight interleaved lanes of the element type, then added in a tree. The
// lanes break the add dependency chain; the block bound keeps each lane's
// rounding error to 16 additions.
const sumBlock = 128

// foldRow returns op over s[off + i·stride] for i < n. Contiguous sums add
// blocks of sumBlock elements in eight lanes and the block sums in A.
func foldRow[T Elem, A accum](op ReduceOp, s []T, off, n, stride int, id A) A {
	if stride == 1 {
		row := s[off : off+n]
		switch op {
		case Sum:
			var total A
			if f, ok := any(row).([]float32); ok {
				if _, wide := any(total).(float64); wide {
					if t, used, ok := simd.SumBlocks(f); ok { // the loop below, in assembly
						total, row = A(t), row[used:]
					}
				}
			}
			for len(row) >= sumBlock {
				total += A(sum8(row[:sumBlock]))
				row = row[sumBlock:]
			}
			for _, v := range row {
				total += A(v)
			}
			return total
		case MaxAll:
			acc := id
			for _, v := range row {
				acc = max(acc, A(v))
			}
			return acc
		default:
			acc := id
			for _, v := range row {
				acc = min(acc, A(v))
			}
			return acc
		}
	}
	acc := id
	for i := 0; i < n; i++ {
		acc = combine(op, acc, A(s[off+i*stride]))
	}
	return acc
}

// sum8 adds a block whose length is a multiple of 8 in eight lanes.
func sum8[T Elem](b []T) T {
	var a0, a1, a2, a3, a4, a5, a6, a7 T
	for len(b) >= 8 {
		c := b[:8:8]
		a0 += c[0]
		a1 += c[1]
		a2 += c[2]
		a3 += c[3]
		a4 += c[4]
		a5 += c[5]
		a6 += c[6]
		a7 += c[7]
		b = b[8:]
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// identity returns op's neutral element in A: 0 for sum, the lowest value
// for max, the highest for min.
func identity[A accum](op ReduceOp) A {
	var z A
	if op == Sum {
		return z
	}
	hi := op == MinAll
	var v any
	switch any(z).(type) {
	case float32:
		v = float32(math.Inf(-1))
		if hi {
			v = float32(math.Inf(1))
		}
	case float64:
		v = math.Inf(-1)
		if hi {
			v = math.Inf(1)
		}
	case int32:
		v = int32(math.MinInt32)
		if hi {
			v = int32(math.MaxInt32)
		}
	case uint32:
		v = uint32(0)
		if hi {
			v = uint32(math.MaxUint32)
		}
	}
	return v.(A)
}

// ReduceGeometry is the iteration space of reducing src over its reduced
// dims into a contiguous output: src's dims put in memory order (largest
// |stride| outermost), then coalesced over (src, out), which drops size-1
// dims and merges runs of reduced and of kept dims (the MXNet/TVM
// pattern). in holds src's strides and out the output's, 0 exactly on the
// reduced dims. Every backend reduces over this geometry.
func ReduceGeometry(src Layout, reduced []bool) (shape Shape, in, out []int) {
	// Output strides over src's dims: the target's contiguous strides, 0 where reduced.
	kept := src.shape.Clone()
	for d := range kept {
		if reduced[d] {
			kept[d] = 1
		}
	}
	outStride := ContiguousStrides(kept)
	for d := range outStride {
		if reduced[d] {
			outStride[d] = 0
		}
	}
	perm := make([]int, len(src.shape))
	for d := range perm {
		perm[d] = d
	}
	sort.SliceStable(perm, func(i, j int) bool { return abs(src.stride[perm[i]]) > abs(src.stride[perm[j]]) })
	pShape, pIn, pOut := make(Shape, len(perm)), make([]int, len(perm)), make([]int, len(perm))
	for i, d := range perm {
		pShape[i], pIn[i], pOut[i] = src.shape[d], src.stride[d], outStride[d]
	}
	shape, st := Coalesce(pShape, pIn, pOut)
	return shape, st[0], st[1]
}
