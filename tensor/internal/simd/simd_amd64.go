//go:build amd64 && !purego

package simd

import "unsafe"

// hasAssembly says VV, VS and SV run the assembly here.
const hasAssembly = true

// The assembly, one function per operation, form and store kind. Each
// takes any n: blocks of 16 elements, then one at a time. The NT
// variants need dst 16-byte aligned and n a multiple of 16.

//go:noescape
func addVV(dst, a, b *float32, n int)

//go:noescape
func subVV(dst, a, b *float32, n int)

//go:noescape
func mulVV(dst, a, b *float32, n int)

//go:noescape
func divVV(dst, a, b *float32, n int)

//go:noescape
func addVVNT(dst, a, b *float32, n int)

//go:noescape
func subVVNT(dst, a, b *float32, n int)

//go:noescape
func mulVVNT(dst, a, b *float32, n int)

//go:noescape
func divVVNT(dst, a, b *float32, n int)

//go:noescape
func addVS(dst, a *float32, s float32, n int)

//go:noescape
func subVS(dst, a *float32, s float32, n int)

//go:noescape
func mulVS(dst, a *float32, s float32, n int)

//go:noescape
func divVS(dst, a *float32, s float32, n int)

//go:noescape
func addVSNT(dst, a *float32, s float32, n int)

//go:noescape
func subVSNT(dst, a *float32, s float32, n int)

//go:noescape
func mulVSNT(dst, a *float32, s float32, n int)

//go:noescape
func divVSNT(dst, a *float32, s float32, n int)

//go:noescape
func addSV(dst *float32, s float32, b *float32, n int)

//go:noescape
func subSV(dst *float32, s float32, b *float32, n int)

//go:noescape
func mulSV(dst *float32, s float32, b *float32, n int)

//go:noescape
func divSV(dst *float32, s float32, b *float32, n int)

//go:noescape
func addSVNT(dst *float32, s float32, b *float32, n int)

//go:noescape
func subSVNT(dst *float32, s float32, b *float32, n int)

//go:noescape
func mulSVNT(dst *float32, s float32, b *float32, n int)

//go:noescape
func divSVNT(dst *float32, s float32, b *float32, n int)

//go:noescape
func sum4(dst, r0, r1, r2, r3 *float32, n int)

//go:noescape
func sum4NT(dst, r0, r1, r2, r3 *float32, n int)

//go:noescape
func sumBlocks(b *float32, blocks int) float64

// Fence orders the streaming stores made so far before every later store
// (SFENCE): call it before another goroutine may read what was streamed.
//
//go:noescape
func Fence()

// Each table row holds an operation's ordinary and streaming loops.
var (
	vv = [numOps][2]func(dst, a, b *float32, n int){
		{addVV, addVVNT}, {subVV, subVVNT}, {mulVV, mulVVNT}, {divVV, divVVNT}}
	vs = [numOps][2]func(dst, a *float32, s float32, n int){
		{addVS, addVSNT}, {subVS, subVSNT}, {mulVS, mulVSNT}, {divVS, divVSNT}}
	sv = [numOps][2]func(dst *float32, s float32, b *float32, n int){
		{addSV, addSVNT}, {subSV, subSVNT}, {mulSV, mulSVNT}, {divSV, divSVNT}}
)

// VV sets dst[i] = a[i] op b[i] for i < len(dst) and reports true; a and
// b hold at least len(dst) elements. With stream set, the 16-byte-aligned
// whole blocks of dst are written with non-temporal stores.
func VV(op Op, dst, a, b []float32, stream bool) bool {
	n := len(dst)
	a, b = a[:n], b[:n]
	if op < 0 || op >= numOps {
		return false
	}
	for _, p := range pieces(dst, stream) {
		if p.n > 0 {
			vv[op][p.nt](&dst[p.at], &a[p.at], &b[p.at], p.n)
		}
	}
	return true
}

// VS sets dst[i] = a[i] op s, as VV.
func VS(op Op, dst, a []float32, s float32, stream bool) bool {
	n := len(dst)
	a = a[:n]
	if op < 0 || op >= numOps {
		return false
	}
	for _, p := range pieces(dst, stream) {
		if p.n > 0 {
			vs[op][p.nt](&dst[p.at], &a[p.at], s, p.n)
		}
	}
	return true
}

// SV sets dst[i] = s op b[i], as VV.
func SV(op Op, dst []float32, s float32, b []float32, stream bool) bool {
	n := len(dst)
	b = b[:n]
	if op < 0 || op >= numOps {
		return false
	}
	for _, p := range pieces(dst, stream) {
		if p.n > 0 {
			sv[op][p.nt](&dst[p.at], s, &b[p.at], p.n)
		}
	}
	return true
}

// Sum4 sets dst[i] = (r0[i] + r1[i]) + (r2[i] + r3[i]) + 0 for i < len(dst)
// and reports true: the sum of four rows in pairs, as the CPU's reduce
// adds them (the + 0 gives +0 for a sum of -0s). With stream set, as VV.
func Sum4(dst, r0, r1, r2, r3 []float32, stream bool) bool {
	n := len(dst)
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	loops := [2]func(dst, r0, r1, r2, r3 *float32, n int){sum4, sum4NT}
	for _, p := range pieces(dst, stream) {
		if p.n > 0 {
			loops[p.nt](&dst[p.at], &r0[p.at], &r1[p.at], &r2[p.at], &r3[p.at], p.n)
		}
	}
	return true
}

// SumBlocks returns the float64 sum of b's whole blocks of 128 elements
// (NumPy's pairwise block), each block summed in eight float32 lanes, lane
// k taking elements 8i+k, and the lanes added as
// ((a0+a1)+(a2+a3)) + ((a4+a5)+(a6+a7)); and how many elements that is.
func SumBlocks(b []float32) (float64, int, bool) {
	blocks := len(b) / 128
	if blocks == 0 {
		return 0, 0, true
	}
	return sumBlocks(&b[0], blocks), blocks * 128, true
}

// piece is a run of dst one loop writes: [at, at+n), streamed when nt is 1.
type piece struct{ at, n, nt int }

// pieces cuts dst into the run before its first 16-byte boundary, the
// whole blocks after it (streamed) and the rest; or one ordinary run when
// not streaming.
func pieces(dst []float32, stream bool) [3]piece {
	n := len(dst)
	if !stream || n == 0 {
		return [3]piece{{0, n, 0}}
	}
	head := int((aligned-uintptr(unsafe.Pointer(&dst[0]))%aligned)%aligned) / 4
	head = min(head, n)
	body := (n - head) / block * block
	return [3]piece{{0, head, 0}, {head, body, 1}, {head + body, n - head - body, 0}}
}
