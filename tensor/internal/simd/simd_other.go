//go:build !amd64 || purego

package simd

// hasAssembly says VV, VS and SV run the assembly here: they do not.
const hasAssembly = false

// VV has no assembly here: it reports false and the caller runs its own
// loop.
func VV(op Op, dst, a, b []float32, stream bool) bool { return false }

// VS has no assembly here, as VV.
func VS(op Op, dst, a []float32, s float32, stream bool) bool { return false }

// SV has no assembly here, as VV.
func SV(op Op, dst []float32, s float32, b []float32, stream bool) bool { return false }

// Sum4 has no assembly here, as VV.
func Sum4(dst, r0, r1, r2, r3 []float32, stream bool) bool { return false }

// SumBlocks has no assembly here, as VV.
func SumBlocks(b []float32) (float64, int, bool) { return 0, 0, false }

// Fence has nothing to order here.
func Fence() {}
