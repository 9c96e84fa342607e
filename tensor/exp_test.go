package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpOfMatchesMathExp checks expOf against math.Exp on every special
// float32, the edges of float32's range and 2^18 random values: the
// float32 results agree exactly, and the float64 ones within 2 ulps
// (math.Exp's amd64 assembly may differ from the pure-Go algorithm in the
// last bit).
func TestExpOfMatchesMathExp(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1e-9, -1e-9, 88.72, 88.73, -87.3, -103.97, -104, -127.99, 127.99, 128, -128,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 1 << 18 {
		xs = append(xs, float32(rnd.Float64()*230-120))
	}
	for range 1 << 16 { // softmax's arguments: float64 differences x − max
		v := -rnd.Float64() * 130
		if got, want := expOf(v), math.Exp(v); math.Abs(got-want) > 2*math.Abs(want)*0x1p-52 {
			t.Fatalf("expOf(%v) = %v, want %v within 2 ulps", v, got, want)
		}
	}
	for _, x := range xs {
		got, want := expOf(float64(x)), math.Exp(float64(x))
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("expOf(%v) = %v, want NaN", x, got)
			}
			continue
		}
		if float32(got) != float32(want) {
			t.Fatalf("float32(expOf(%v)) = %v, want %v", x, float32(got), float32(want))
		}
		if d := int64(math.Float64bits(got)) - int64(math.Float64bits(want)); d > 2 || d < -2 {
			t.Fatalf("expOf(%v) = %v, %d ulps from math.Exp's %v", x, got, d, want)
		}
	}
}

func BenchmarkExpOf(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%200)/20 - 5
	}
	b.Run("expOf", func(b *testing.B) {
		for range b.N {
			for i, v := range x {
				x[i] = float32(expOf(float64(v)))*0 + v
			}
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for range b.N {
			for i, v := range x {
				x[i] = float32(math.Exp(float64(v)))*0 + v
			}
		}
	})
}
