package tensor

import "github.com/stridelab/stridelab/tensor/internal/simd"

// streamBytes is the output size from which the binary kernel writes
// around the cache (simd's streaming stores): past the last-level cache an
// ordinary store first reads its line in, so the output costs its bytes
// twice. Go's memmove switches at 1 MiB; 4 MiB keeps an output a
// following kernel reads in the cache on machines with a larger L3.
const streamBytes = 4 << 20

// binaryStrided is the broadcast binary kernel. Its reference loop, with a
// and b already expanded to the output shape (stride 0 on broadcast dims):
//
//	for each index i (row-major k): dst[k] = op(as[a.Offset(i)], bs[b.Offset(i)])
//
// After coalescing (a, b, dst) the inner row has strides (1, 1), (1, 0),
// (0, 1) or anything else; the first three get loops without index
// arithmetic, and float32 rows of Add, Sub, Mul and Div the assembly of
// package simd where it has some.
func binaryStrided[T Elem](op BinaryOp, dst, as []T, a Layout, bs []T, b Layout) {
	shape, st := splitInner(Coalesce(a.shape, a.stride, b.stride, ContiguousStrides(a.shape)))
	n := len(dst)
	if n == 0 {
		return
	}
	if len(shape) == 0 {
		binaryRow(op, dst, as, a.base, 0, bs, b.base, 0, false)
		return
	}
	stream := n*4 >= streamBytes
	last := len(shape) - 1
	inner := shape[last]
	rows := n / inner
	parallelFor(rows, n, func(lo, hi int) {
		od := newOdometer(shape[:last], [][]int{st[0][:last], st[1][:last]}, []int{a.base, b.base})
		od.seek(lo)
		for r := lo; r < hi; r++ {
			binaryRow(op, dst[r*inner:(r+1)*inner], as, od.off[0], st[0][last], bs, od.off[1], st[1][last], stream)
			od.next()
		}
		if stream {
			simd.Fence()
		}
	})
}

// binaryRow computes dst[i] = op(a[ao+i·ast], b[bo+i·bst]) for i < len(dst),
// streaming dst past the cache where the assembly does (stream).
func binaryRow[T Elem](op BinaryOp, dst, a []T, ao, ast int, b []T, bo, bst int, stream bool) {
	n := len(dst)
	switch {
	case ast == 1 && bst == 1:
		if !simdVV(op, dst, a[ao:ao+n], b[bo:bo+n], stream) {
			binaryVV(op, dst, a[ao:ao+n], b[bo:bo+n])
		}
	case ast == 1 && bst == 0:
		if !simdVS(op, dst, a[ao:ao+n], b[bo], stream) {
			binaryVS(op, dst, a[ao:ao+n], b[bo])
		}
	case ast == 0 && bst == 1:
		if !simdSV(op, dst, a[ao], b[bo:bo+n], stream) {
			binarySV(op, dst, a[ao], b[bo:bo+n])
		}
	default:
		for i := range dst {
			dst[i] = apply(op, a[ao+i*ast], b[bo+i*bst])
		}
	}
}

// simdOp names op in package simd, which has assembly for four ops.
func simdOp(op BinaryOp) (simd.Op, bool) {
	switch op {
	case Add:
		return simd.Add, true
	case Sub:
		return simd.Sub, true
	case Mul:
		return simd.Mul, true
	case Div:
		return simd.Div, true
	}
	return 0, false
}

// simdVV runs binaryVV's loop in package simd's assembly where there is
// one for op and T (float32 on amd64) and reports whether it did.
func simdVV[T Elem](op BinaryOp, dst, a, b []T, stream bool) bool {
	d, ok := any(dst).([]float32)
	o, has := simdOp(op)
	return ok && has && simd.VV(o, d, any(a).([]float32), any(b).([]float32), stream)
}

// simdVS is simdVV for binaryVS.
func simdVS[T Elem](op BinaryOp, dst, a []T, s T, stream bool) bool {
	d, ok := any(dst).([]float32)
	o, has := simdOp(op)
	return ok && has && simd.VS(o, d, any(a).([]float32), any(s).(float32), stream)
}

// simdSV is simdVV for binarySV.
func simdSV[T Elem](op BinaryOp, dst []T, s T, b []T, stream bool) bool {
	d, ok := any(dst).([]float32)
	o, has := simdOp(op)
	return ok && has && simd.SV(o, d, any(s).(float32), any(b).([]float32), stream)
}

// apply is op on one pair: the definition every loop below unrolls.
func apply[T Elem](op BinaryOp, x, y T) T {
	switch op {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	case Div:
		return divide(x, y)
	case Max:
		return max(x, y)
	case Min:
		return min(x, y)
	case Eq:
		return equal[T](x == y)
	}
	panic("tensor: no kernel for " + op.String()) // BinaryOperands rejects unknown ops first
}

// equal is Eq's result for a comparison: 1 or 0 in the operands' dtype.
// A float NaN compares unequal to everything, itself included.
func equal[T Elem](eq bool) T {
	if eq {
		return 1
	}
	return 0
}

// divide is x / y; integer division by zero returns x, as WGSL defines it,
// instead of panicking. Float division follows IEEE 754 (±Inf, NaN).
func divide[T Elem](x, y T) T {
	var one T = 1
	if y == 0 && one/2 == 0 { // integer type
		return x
	}
	return x / y
}

func binaryVV[T Elem](op BinaryOp, dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	switch op {
	case Add:
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case Sub:
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case Mul:
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case Max:
		for i := range dst {
			dst[i] = max(a[i], b[i])
		}
	case Min:
		for i := range dst {
			dst[i] = min(a[i], b[i])
		}
	case Eq:
		for i := range dst {
			dst[i] = equal[T](a[i] == b[i])
		}
	default:
		for i := range dst {
			dst[i] = apply(op, a[i], b[i])
		}
	}
}

func binaryVS[T Elem](op BinaryOp, dst, a []T, s T) {
	a = a[:len(dst)]
	switch op {
	case Add:
		for i := range dst {
			dst[i] = a[i] + s
		}
	case Sub:
		for i := range dst {
			dst[i] = a[i] - s
		}
	case Mul:
		for i := range dst {
			dst[i] = a[i] * s
		}
	default:
		for i := range dst {
			dst[i] = apply(op, a[i], s)
		}
	}
}

func binarySV[T Elem](op BinaryOp, dst []T, s T, b []T) {
	b = b[:len(dst)]
	switch op {
	case Add:
		for i := range dst {
			dst[i] = s + b[i]
		}
	case Sub:
		for i := range dst {
			dst[i] = s - b[i]
		}
	case Mul:
		for i := range dst {
			dst[i] = s * b[i]
		}
	default:
		for i := range dst {
			dst[i] = apply(op, s, b[i])
		}
	}
}
