package tensor

import (
	"runtime"
	"sync"
)

// odometer walks the outer dims of a kernel's iteration in row-major order,
// keeping a running offset per operand, so a kernel's inner loop sees only
// (offsets, row length) and no index arithmetic.
type odometer struct {
	shape   []int
	strides [][]int // per operand
	bases   []int   // per operand
	idx     []int
	off     []int // per operand: base + Σ idx[d]·strides[k][d]
}

func newOdometer(shape []int, strides [][]int, bases []int) *odometer {
	return &odometer{shape: shape, strides: strides, bases: bases,
		idx: make([]int, len(shape)), off: make([]int, len(bases))}
}

// seek positions the odometer at the row-th index in row-major order.
func (o *odometer) seek(row int) {
	copy(o.off, o.bases)
	for d := len(o.shape) - 1; d >= 0; d-- {
		n := o.shape[d]
		o.idx[d] = row % n
		row /= n
		for k := range o.off {
			o.off[k] += o.idx[d] * o.strides[k][d]
		}
	}
}

// next advances to the following index.
func (o *odometer) next() {
	for d := len(o.shape) - 1; d >= 0; d-- {
		o.idx[d]++
		if o.idx[d] < o.shape[d] {
			for k := range o.off {
				o.off[k] += o.strides[k][d]
			}
			return
		}
		for k := range o.off {
			o.off[k] -= (o.shape[d] - 1) * o.strides[k][d]
		}
		o.idx[d] = 0
	}
}

// parallelGrain is the element count below which a kernel runs on one
// goroutine. Starting a goroutine is cheap, but waking an idle OS thread
// to run it is not: on a 2-core VM, splitting repeat [64 1 256] by
// [2 16 1] (2 MiB out, ~30 µs on one goroutine into a recycled buffer)
// over two made it no faster and its timings twice as spread. Past 4 MiB
// the second core's bandwidth wins.
const parallelGrain = 1 << 20

// rowTarget is the row length splitInner cuts a long innermost dim to:
// 16 Ki float32s, 64 KiB, so a row the unary kernel gathers is still in
// the L2 cache when it applies its op, and a contiguous tensor has rows
// for parallelFor to share out.
const rowTarget = 1 << 14

// splitInner cuts the innermost dim of a coalesced iteration (shape, and
// one stride list per operand) into rows of c = gcd(inner, rowTarget)
// elements, when it is longer than rowTarget and c is at least 1,024:
//
//	shape [..., inner] → [..., inner/c, c];  stride s → [c·s, s]
//
// Coalescing a contiguous tensor leaves a single row, which parallelFor
// cannot split between CPUs: exp of [4096,4096] ran on one.
func splitInner(shape []int, strides [][]int) ([]int, [][]int) {
	last := len(shape) - 1
	if last < 0 || shape[last] <= rowTarget {
		return shape, strides
	}
	inner := shape[last]
	c := rowTarget
	for inner%c != 0 {
		c /= 2
	}
	if c < 1024 {
		return shape, strides
	}
	split := append(append([]int{}, shape[:last]...), inner/c, c)
	out := make([][]int, len(strides))
	for k, st := range strides {
		out[k] = append(append([]int{}, st[:last]...), c*st[last], st[last])
	}
	return split, out
}

// parallelFor runs fn over [0, n) split into one contiguous chunk per CPU
// when the kernel touches at least parallelGrain elements, else in one call.
func parallelFor(n, elements int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || elements < parallelGrain {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// fill sets every element of dst to v by doubling copies (memmove speed).
func fill[T any](dst []T, v T) {
	if len(dst) == 0 {
		return
	}
	dst[0] = v
	for n := 1; n < len(dst); n *= 2 {
		copy(dst[n:], dst[:n])
	}
}

// maxWorkers is the number of goroutines a kernel splits into.
func maxWorkers() int { return runtime.GOMAXPROCS(0) }
