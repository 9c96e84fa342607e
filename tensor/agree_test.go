package tensor

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestAgreeValues(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		a, b, tol float64
		want      bool
	}{
		{nan, nan, 0, true}, // 0/0 on both sides
		{nan, math.Float64frombits(math.Float64bits(nan) ^ 1), 0, true}, // another payload
		{nan, 1, Tolerance, false},
		{1, nan, Tolerance, false},
		{nan, inf, Tolerance, false},
		{inf, inf, 0, true},
		{-inf, -inf, 0, true},
		{inf, -inf, Tolerance, false},
		{inf, math.MaxFloat64, Tolerance, false},
		{math.MaxFloat64, -math.MaxFloat64, Tolerance, false}, // a − b overflows
		{negZero, 0, 0, true},
		{3, 3, 0, true},
		{3, 4, 0, false},
		// relative to max(1, |a|, |b|): 1e-5 of 1e6 is 10
		{1e6, 1e6 + 10, 1e-5, true},
		{1e6, 1e6 + 10.5, 1e-5, false},
		{1e6 + 10, 1e6, 1e-5, true}, // symmetric
		// near zero the 1 makes it absolute
		{0, 1e-5, 1e-5, true},
		{0, 1.5e-5, 1e-5, false},
		{-1e-6, 1e-6, 1e-5, true},
		{1, 2, -1, false},
	} {
		if got := AgreeValues(c.a, c.b, c.tol); got != c.want {
			t.Errorf("AgreeValues(%v, %v, %v) = %v, want %v", c.a, c.b, c.tol, got, c.want)
		}
	}
}

func TestAgree(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f := func(v ...float32) Tensor {
		x, err := FromSlice(Shape{len(v)}, v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	i := func(v ...int32) Tensor {
		x, err := FromSlice(Shape{len(v)}, v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, c := range []struct {
		name          string
		got, want     Tensor
		equal, agrees bool
		maxAbs        float64
		at            []int
		words         string
	}{
		{"same", f(0, 1, 2), f(0, 1, 2), true, true, 0, nil, "equals the CPU reference"},
		{"0/0 at [0] on both", f(nan, 1, 2), f(nan, 1, 2), true, true, 0, nil, "equals the CPU reference"},
		{"NaN against a number", f(nan, 1), f(0, 1), false, false, math.Inf(1), []int{0}, "differs from the CPU reference: NaN against 0 at [0] (difference +Inf, tolerance 1e-5)"},
		{"+Inf against +Inf", f(inf, 1), f(inf, 1), true, true, 0, nil, "equals the CPU reference"},
		{"+Inf against -Inf", f(1, inf), f(1, -inf), false, false, math.Inf(1), []int{1}, "differs from the CPU reference: +Inf against -Inf at [1] (difference +Inf, tolerance 1e-5)"},
		{"-0 against +0", f(1, float32(math.Copysign(0, -1))), f(1, 0), false, true, 0, []int{1}, "agrees with the CPU reference within 1e-5 (the same values in other bits: -0 against 0 at [1])"},
		{"last bits", f(1, 1000.001), f(1, 1000), false, true, float64(float32(1000.001)) - 1000, []int{1}, "agrees with the CPU reference within 1e-5 (largest difference 0.0009765625 at [1])"},
		{"past the tolerance", f(1, 2, 3.5), f(1, 2, 3), false, false, 0.5, []int{2}, "differs from the CPU reference: 3.5 against 3 at [2] (difference 0.5, tolerance 1e-5)"},
		// the worst pair is the one of largest relative difference
		{"worst is relative", f(1e6+64, 1.5), f(1e6, 1), false, false, 64, []int{1}, "differs from the CPU reference: 1.5 against 1 at [1] (difference 64, tolerance 1e-5)"},
		{"ints equal", i(1, 2, 3), i(1, 2, 3), true, true, 0, nil, "equals the CPU reference"},
		// integers do not round: off by one is a difference at any size
		{"ints off by one", i(1, 2, 1000001), i(1, 2, 1000000), false, false, 1, []int{2}, "differs from the CPU reference: 1.000001e+6 against 1e+6 at [2] (difference 1, tolerance 0)"},
		{"empty", f(), f(), true, true, 0, nil, "equals the CPU reference"},
	} {
		a, err := Agree(c.got, c.want, Tolerance)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.Equal != c.equal || a.Agrees != c.agrees || a.MaxAbs != c.maxAbs || !slices.Equal(a.At, c.at) {
			t.Errorf("%s: got equal %v agrees %v max %v at %v, want %v %v %v %v", c.name, a.Equal, a.Agrees, a.MaxAbs, a.At, c.equal, c.agrees, c.maxAbs, c.at)
		}
		if a.Agrees != AgreeAll(c.got.Float64s(), c.want.Float64s(), a.Tol) {
			t.Errorf("%s: Agree says agrees %v, AgreeValues on each pair the other", c.name, a.Agrees)
		}
		if got := a.Words("the CPU reference"); got != c.words {
			t.Errorf("%s: Words = %q, want %q", c.name, got, c.words)
		}
	}
}

// AgreeAll is the rule written out: every pair agrees by AgreeValues.
func AgreeAll(g, w []float64, tol float64) bool {
	for i := range g {
		if !AgreeValues(g[i], w[i], tol) {
			return false
		}
	}
	return true
}

func TestAgreeRefusesOtherShapesAndDTypes(t *testing.T) {
	a, _ := Arange(Float32, Shape{2, 3})
	b, _ := Arange(Float32, Shape{3, 2})
	c, _ := Arange(Int32, Shape{2, 3})
	for _, x := range []struct {
		got, want Tensor
		kind      error
		msg       string
	}{
		{a, b, ErrShape, "tensor: compare float32 [2 3] with float32 [3 2]: the shapes differ"},
		{a, c, ErrDType, "tensor: compare float32 [2 3] with int32 [2 3]: the dtypes differ"},
	} {
		_, err := Agree(x.got, x.want, Tolerance)
		if !errors.Is(err, x.kind) || err.Error() != x.msg {
			t.Errorf("Agree %v with %v: %v, want %q", x.got.Shape(), x.want.Shape(), err, x.msg)
		}
	}
}

func TestAgreementWordsWithoutAnObject(t *testing.T) {
	x, _ := FromSlice(Shape{2}, []float32{1, 2})
	y, _ := FromSlice(Shape{2}, []float32{1, 2.5})
	for _, c := range []struct {
		got, want Tensor
		words     string
	}{
		{x, x, "equals"},
		{x, y, "differs: 2 against 2.5 at [1] (difference 0.5, tolerance 1e-5)"},
	} {
		a, _ := Agree(c.got, c.want, Tolerance)
		if got := a.Words(""); got != c.words || strings.Contains(got, "  ") {
			t.Errorf("Words(\"\") = %q, want %q", got, c.words)
		}
	}
}
