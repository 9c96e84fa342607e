package tensor

// repeatStrided is the direct repeat kernel. Its reference loop, with src
// padded on the left to len(times) dims of size 1:
//
//	for each index i of out: out[i] = s[src.Offset(i[d] mod shape[d] for each d)]
//
// Each output block is the source row copied times[last] times (and more,
// see below); the outer dims walk a wrapping odometer (the source coordinate returns to 0 every
// shape[d] steps) instead of computing a modulo per element.
func repeatStrided[T Elem](dst, s []T, src Layout, times []int) {
	n := len(dst)
	if n == 0 {
		return
	}
	lead := len(times) - len(src.shape)
	inShape := make([]int, len(times))
	inStride := make([]int, len(times))
	for d := range times {
		inShape[d] = 1
		if d >= lead {
			inShape[d], inStride[d] = src.shape[d-lead], src.stride[d-lead]
		}
	}
	if len(times) == 0 {
		dst[0] = s[src.base]
		return
	}
	last := len(times) - 1
	rowIn, is := inShape[last], inStride[last]
	// The output block under the outer dims is the source row repeated:
	// times[last] times, and again for each dim just outside it whose
	// source size is 1. Doubling copies fill it in log2 steps.
	split, inner := last, rowIn*times[last]
	for split > 0 && inShape[split-1] == 1 {
		split--
		inner *= times[split]
	}
	rows := n / inner
	parallelFor(rows, n, func(lo, hi int) {
		w := newWrapOdometer(inShape[:split], times[:split], inStride[:split], src.base)
		w.seek(lo)
		for r := lo; r < hi; r++ {
			row := dst[r*inner : (r+1)*inner]
			so := w.off
			switch {
			case rowIn == 1:
				fill(row, s[so])
			case is == 1:
				copy(row, s[so:so+rowIn])
			default:
				for i := 0; i < rowIn; i++ {
					row[i] = s[so+i*is]
				}
			}
			for k := rowIn; k < inner; k *= 2 { // double the copies already made
				copy(row[k:], row[:k])
			}
			w.next()
		}
	})
}

// wrapOdometer walks output dims of size shape[d]·times[d] while tracking
// the source offset of coordinate (i[d] mod shape[d]).
type wrapOdometer struct {
	shape, times, stride []int
	out, in              []int // output and source coordinates
	base, off            int
}

func newWrapOdometer(shape, times, stride []int, base int) *wrapOdometer {
	return &wrapOdometer{shape: shape, times: times, stride: stride,
		out: make([]int, len(shape)), in: make([]int, len(shape)), base: base}
}

func (w *wrapOdometer) seek(row int) {
	w.off = w.base
	for d := len(w.shape) - 1; d >= 0; d-- {
		size := w.shape[d] * w.times[d]
		w.out[d] = row % size
		row /= size
		w.in[d] = w.out[d] % w.shape[d]
		w.off += w.in[d] * w.stride[d]
	}
}

func (w *wrapOdometer) next() {
	for d := len(w.shape) - 1; d >= 0; d-- {
		w.out[d]++
		w.in[d]++
		w.off += w.stride[d]
		if w.in[d] == w.shape[d] {
			w.in[d] = 0
			w.off -= w.shape[d] * w.stride[d]
		}
		if w.out[d] < w.shape[d]*w.times[d] {
			return
		}
		w.out[d] = 0
	}
}
