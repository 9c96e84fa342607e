package tensor

import (
	"math"
	"testing"
)

// Every test of this package runs with poisoned empty buffers, so a kernel
// that skips an output element sees NaN / 0x7fc0dead there and fails.
func init() { poisonEmpty = true }

func TestEmptyIsPoisonedAndZerosIsClear(t *testing.T) {
	e, err := Empty(Float32, Shape{3, 5})
	if err != nil {
		t.Fatal(err)
	}
	buf, err := Buffer[float32](e)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range buf {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("Empty element %d = %v, want the NaN poison under test", i, v)
		}
	}
	for _, dt := range []DType{Float32, Int32, Uint32} {
		z, err := Zeros(dt, Shape{4, 0, 2})
		if err != nil || z.NumElements() != 0 {
			t.Fatalf("Zeros(%v, [4,0,2]) = %v, %v", dt, z, err)
		}
		z, _ = Zeros(dt, Shape{257})
		for i, v := range z.Float64s() {
			if v != 0 {
				t.Fatalf("Zeros(%v) element %d = %v", dt, i, v)
			}
		}
	}
	if _, err := Empty(DType(99), Shape{2}); err == nil {
		t.Fatal("Empty accepted an unknown dtype")
	}
}
