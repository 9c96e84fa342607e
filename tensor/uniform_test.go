package tensor

import (
	"math"
	"testing"
)

// The pinned values were computed apart from Go, with Python's integers
// and struct's float32 rounding: seed = fnv1a32(name) (0xf20c3f36 for
// "w", 0xfd0c5087 for "x", the offset basis 0x811c9dc5 for ""), then
// float32(((i·2654435761 + seed) mod 2^32) / 2^31 − 1).
func TestUniformPinned(t *testing.T) {
	cases := []struct {
		name string
		i    int
		want float32
	}{
		{"w", 0, 0.8909987211227417},
		{"w", 1, 0.1270667165517807},
		{"w", 2, -0.6368653178215027},
		{"w", 1000, 0.9589722752571106},
		{"x", 0, 0.9769383072853088},
		{"x", 1000, -0.9550881385803223},
		{"", 1, -0.7552462220191956},
		// The ends: h = 0 is −1; h = 2^32 − 65 is the largest below 1,
		// and h = 2^32 − 64 (a tie) rounds to even, 1.
		{"w", 3828553194, -1},
		{"w", 853283417, 0.99999994},
		{"w", 1097286058, 1},
	}
	for _, c := range cases {
		if got := uniformAt(uniformSeed(c.name), c.i); math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("uniform %q at %d = %v, want %v", c.name, c.i, got, c.want)
		}
	}
	// The tensor holds the same values row-major.
	u, err := Uniform("w", Shape{2, 3, 200})
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Float64s(); got[0] != float64(cases[0].want) || got[2] != float64(cases[2].want) {
		t.Errorf("Uniform(w, [2 3 200]) starts %v, want %v, %v, %v", got[:3], cases[0].want, cases[1].want, cases[2].want)
	}
}

// TestUniformSpread: every value lies in [−1, 1], the mean is near 0
// and each tenth of the range holds near a tenth of the values (a Weyl
// sequence is equidistributed), and two names give different values.
func TestUniformSpread(t *testing.T) {
	const n = 100000
	w, err := Uniform("w", Shape{n})
	if err != nil {
		t.Fatal(err)
	}
	x, err := Uniform("x", Shape{n})
	if err != nil {
		t.Fatal(err)
	}
	wv, xv := w.Float64s(), x.Float64s()
	var sum float64
	var bins [10]int
	same := 0
	for i, v := range wv {
		if v < -1 || v > 1 {
			t.Fatalf("uniform w at %d = %v, outside [-1, 1]", i, v)
		}
		sum += v
		bins[min(int((v+1)*5), 9)]++
		if v == xv[i] {
			same++
		}
	}
	if mean := sum / n; math.Abs(mean) > 0.01 {
		t.Errorf("mean of uniform w over %d values = %v, want near 0", n, mean)
	}
	for b, c := range bins {
		if c < n/10-n/100 || c > n/10+n/100 {
			t.Errorf("bin %d of 10 holds %d of %d values, want %d ± %d", b, c, n, n/10, n/100)
		}
	}
	if same > n/1000 {
		t.Errorf("uniform w and x agree at %d of %d indices", same, n)
	}
}

func TestUniformEmptyAndBudget(t *testing.T) {
	u, err := Uniform("w", Shape{0, 3})
	if err != nil || len(u.Float64s()) != 0 {
		t.Errorf("Uniform of [0 3] = %v, %v; want an empty tensor", u, err)
	}
	if _, err := Uniform("w", Shape{1 << 40, 1 << 30}); err == nil {
		t.Error("Uniform of [2^40 2^30] allocated; want the result limit's error")
	}
}
