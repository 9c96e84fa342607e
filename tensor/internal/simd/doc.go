// Package simd holds float32 loops of the CPU's broadcast binary and
// reduce kernels in SSE assembly on amd64, four lanes at a time, with an option to write
// the output around the cache.
//
// # Overview
//
// VV, VS and SV compute, for i < len(dst),
//
//	VV: dst[i] = a[i] op b[i]
//	VS: dst[i] = a[i] op s
//	SV: dst[i] = s op b[i]
//
// for op one of Add, Sub, Mul, Div, and Sum4 adds four rows in pairs,
//
//	Sum4: dst[i] = (r0[i] + r1[i]) + (r2[i] + r3[i]) + 0
//
// the reduce kernel's sum over four rows; SumBlocks sums a row in
// NumPy's blocks of 128, eight float32 lanes each, into a float64 total. SSE's ADDPS, SUBPS, MULPS and DIVPS
// round each lane as Go's float32 +, -, * and / do (IEEE 754, round to
// nearest even; Go compiles those operators to ADDSS and its kin), so the
// results are the scalar loop's, bit for bit, NaN and ±Inf included.
//
// # Streaming stores
//
// With stream set, dst is written with MOVNTPS: non-temporal stores that
// go to memory through write-combining buffers without first reading each
// cache line in (the read for ownership every ordinary store pays). An
// output much larger than the caches then costs its bytes once, not
// twice: this is why Go's own memmove switches to non-temporal stores for
// large copies, and why a kernel with ordinary stores cannot pass about
// 0.6 of memmove's bandwidth. A caller that streams calls Fence before
// another goroutine reads dst.
//
// # Platform support
//
// The assembly needs only SSE and SSE2, which every amd64 processor has,
// so there is no feature check. On every other architecture (wasm
// included) and under the purego build tag the functions return false and
// the caller runs its own Go loop.
package simd

// Op is one of the binary operations the assembly implements.
type Op int

// The operations, in the order of the assembly's tables.
const (
	Add Op = iota
	Sub
	Mul
	Div
	numOps
)

// aligned is the store alignment MOVNTPS needs, in bytes.
const aligned = 16

// block is how many elements one pass of the assembly's unrolled loop
// takes (four XMM registers of four float32s).
const block = 16
