package shaders

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// divideBy is div_by of wgsl/prelude.wgsl in Go.
func divideBy(n, m, l uint32) uint32 {
	t, _ := bits.Mul32(n, m)
	return (t + (n-t)>>min(l, 1)) >> (max(l, 1) - 1)
}

// mulHi16 is mul_hi of wgsl/prelude.wgsl: the high word of a 32×32-bit
// product from 16-bit halves, as WGSL has no widening multiply.
func mulHi16(a, b uint32) uint32 {
	a0, a1, b0, b1 := a&0xffff, a>>16, b&0xffff, b>>16
	p00, p01, p10, p11 := a0*b0, a0*b1, a1*b0, a1*b1
	mid := p00>>16 + p01&0xffff + p10&0xffff
	return p11 + p01>>16 + p10>>16 + mid>>16
}

func TestDivisorIsExact(t *testing.T) {
	ds := []uint32{1, 2, 3, 4, 5, 6, 7, 9, 17, 33, 64, 65, 255, 256, 257, 4095, 4096, 65535, 65536, 65537,
		1<<31 - 1, 1 << 31, 1<<31 + 1, math.MaxUint32 - 1, math.MaxUint32}
	ns := []uint32{0, 1, 2, 3, 65535, 65536, 1<<31 - 1, 1 << 31, math.MaxUint32 - 1, math.MaxUint32}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ds = append(ds, r.Uint32N(1<<r.UintN(32))+1)
	}
	for _, d := range ds {
		m, l := divisor(d)
		try := append([]uint32{d - 1, d, d + 1, 2*d - 1, 2 * d, d * (math.MaxUint32 / d), d*(math.MaxUint32/d) - 1}, ns...)
		for range 2000 {
			try = append(try, r.Uint32())
		}
		for _, n := range try {
			if got := divideBy(n, m, l); got != n/d {
				t.Fatalf("%d / %d: the magic pair (%d, %d) gives %d", n, d, m, l, got)
			}
		}
	}
}

func TestMulHiFromHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edge := []uint32{0, 1, 0xffff, 0x10000, 0xffffffff, 0x80000000, 0xfffeffff}
	for i := range 100000 {
		a, b := r.Uint32(), r.Uint32()
		if i < len(edge)*len(edge) {
			a, b = edge[i%len(edge)], edge[i/len(edge)]
		}
		if want, _ := bits.Mul32(a, b); mulHi16(a, b) != want {
			t.Fatalf("mul_hi(%#x, %#x) = %#x, want %#x", a, b, mulHi16(a, b), want)
		}
	}
}
