package shaders

import "math/bits"

// divisor returns the magic pair (m, l) with which the kernels divide by
// d without a division instruction (div_by in wgsl/prelude.wgsl), exact
// for every u32 dividend n (Granlund and Montgomery, "Division by
// invariant integers using multiplication", 1994, fig. 4.1):
//
//	l = ⌈log2 d⌉,  m = ⌊2³²·(2^l − d)/d⌋ + 1
//	t = ⌊m·n / 2³²⌋,  n / d = (t + ((n − t) >> min(l, 1))) >> (max(l, 1) − 1)
//
// GPUs and the CPU adapters alike have no vector integer divide: a u32
// division becomes a long instruction sequence on a GPU and one scalar
// divide per lane on a CPU adapter (SwiftShader's expand and repeat spent
// a fifth of their time finding coordinates), while the multiply-high
// and shifts run on every lane at once. The host computes (m, l) once per
// dispatch for each dim, as CUTLASS's FastDivmod does for CUDA kernels.
// d = 0 (no dim has size 0 in a dispatch) gives (0, 0): n / 0 = n.
func divisor(d uint32) (m, l uint32) {
	if d == 0 {
		return 0, 0
	}
	l = uint32(bits.Len32(d - 1))
	m = uint32((uint64(1)<<32*(uint64(1)<<l-uint64(d)))/uint64(d) + 1)
	return m, l
}
