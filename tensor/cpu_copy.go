package tensor

// copyStrided is the materialize kernel. Its reference loop:
//
//	for each index i of src (row-major k): dst[k] = s[src.Offset(i)]
//
// It coalesces (src, dst) first, then copies whole inner rows: memmove when
// the row is contiguous in src, a fill when the row is a broadcast
// (stride 0), a strided gather otherwise.
func copyStrided[T Elem](dst, s []T, src Layout) { gatherRows(dst, s, src, nil) }

// gatherRows is copyStrided, calling then (when not nil) on each output
// row right after it is gathered, while the row is in cache: the unary
// kernel's second half.
func gatherRows[T Elem](dst, s []T, src Layout, then func(row []T)) {
	shape, st := splitInner(Coalesce(src.shape, src.stride, ContiguousStrides(src.shape)))
	n := len(dst)
	if n == 0 {
		return
	}
	if len(shape) == 0 {
		dst[0] = s[src.base]
		if then != nil {
			then(dst[:1])
		}
		return
	}
	last := len(shape) - 1
	inner, is := shape[last], st[0][last]
	rows := n / inner
	parallelFor(rows, n, func(lo, hi int) {
		od := newOdometer(shape[:last], [][]int{st[0][:last]}, []int{src.base})
		od.seek(lo)
		for r := lo; r < hi; r++ {
			row := dst[r*inner : (r+1)*inner]
			so := od.off[0]
			switch is {
			case 1:
				copy(row, s[so:so+inner])
			case 0:
				fill(row, s[so])
			default:
				for i := range row {
					row[i] = s[so+i*is]
				}
			}
			if then != nil {
				then(row)
			}
			od.next()
		}
	})
}
