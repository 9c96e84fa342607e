package tensor

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Tolerance is the relative tolerance two runs of one float32 computation
// are held to (AgreeValues): |a − b| ≤ Tolerance·max(1, |a|, |b|).
// Backends and engines add partial sums in their own orders (a GPU's
// workgroup tree, gloo's all-reduce) and WGSL's division is exact only to
// 2.5 ULP, so float32 results may differ in their last bits; float32's
// epsilon is 2⁻²³ ≈ 1.2e-7, so 1e-5 forgives some 80 roundings and
// nothing a wrong index would make. Sums of whole numbers below 2²⁴ (the
// arange inputs every front end uses) are exact in any order and agree
// bit for bit.
const Tolerance = 1e-5

// AgreeValues reports whether a and b agree within the relative
// tolerance tol. It is the one rule every comparison of two runs uses:
//
//	a or b NaN     agree when both are NaN (0/0 on both sides), whatever the payload
//	a or b ±Inf    agree when both are the same infinity
//	otherwise      |a − b| ≤ tol·max(1, |a|, |b|)
//
// The 1 makes tol an absolute tolerance near zero: values smaller than
// tol in size (1e-5 for Tolerance) agree with 0, so the rule does not
// tell apart results that small; the arange inputs the front ends run
// keep results away from them. With tol = 0 two finite values agree
// only when a == b, so −0 agrees with +0; a negative tol agrees with
// nothing finite (Agree still calls bit-equal tensors Equal, and Equal
// tensors agree whatever tol is).
func AgreeValues(a, b, tol float64) bool {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.IsNaN(a) && math.IsNaN(b)
	case math.IsInf(a, 0) || math.IsInf(b, 0):
		return a == b
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// gap is how far apart a and b are in AgreeValues's terms: |a − b| and
// |a − b| / max(1, |a|, |b|), both 0 when the two are NaN or the same
// infinity, and both +Inf when only one is NaN or an infinity.
func gap(a, b float64) (abs, rel float64) {
	switch {
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		if AgreeValues(a, b, 0) {
			return 0, 0
		}
		return math.Inf(1), math.Inf(1)
	}
	abs = math.Abs(a - b)
	return abs, abs / max(1, math.Abs(a), math.Abs(b))
}

// Agreement is how a tensor got compares with a tensor want of the same
// shape and dtype, value by value (Agree).
type Agreement struct {
	// Equal: every value has the same bits (as a float64), so −0 does not
	// equal +0 and a NaN equals only a NaN of the same bits.
	Equal bool
	// Agrees: every pair agrees within Tol (AgreeValues). Equal implies
	// Agrees.
	Agrees bool
	// Tol is the tolerance held to: the one asked for on float32, 0 on
	// integer dtypes.
	Tol float64
	// MaxAbs and MaxRel are the largest |got − want| and
	// |got − want| / max(1, |got|, |want|) over every pair (gap): 0 for
	// NaN against NaN and an infinity against itself, +Inf for a NaN or an
	// infinity against anything else.
	MaxAbs, MaxRel float64
	// At is the index of the worst pair: the first of largest MaxRel among
	// the pairs whose bits differ; nil when Equal.
	At []int
	// Got and Want are the values at At.
	Got, Want float64
	// Scale is the least size each pair's tolerance is relative to: 1 for
	// Agree; for AgreeNormwise the largest |value| of want (at least 1).
	Scale float64
}

// Agree compares got with want value by value, in row-major order. Their
// shapes must be equal (an error wrapping ErrShape names both) and so must
// their dtypes (ErrDType). Float32 values are held to tol (AgreeValues);
// integer values must be equal whatever tol is, since integer arithmetic
// does not round.
func Agree(got, want Tensor, tol float64) (Agreement, error) { return agree(got, want, tol, false) }

// AgreeNormwise is Agree with each pair held to the tensor's scale, not
// only its own: |a − b| ≤ tol·max(1, |a|, |b|, max|want|). It is how two
// runs of a whole program compare. A distributed run adds its partial
// sums in another order than one device does, and where a sum cancels
// (a layer norm's backward, a softmax's) the rounding error is relative
// to the terms added, not to what is left of them: a gradient of 0.8
// made of terms near 100 differs in its fifth digit. The tensor's largest
// value stands in for the size of its terms. A wrong index still shows:
// it moves a value by the tensor's own size.
func AgreeNormwise(got, want Tensor, tol float64) (Agreement, error) {
	return agree(got, want, tol, true)
}

func agree(got, want Tensor, tol float64, normwise bool) (Agreement, error) {
	op := fmt.Sprintf("compare %v %v with %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
	if !got.Shape().Equal(want.Shape()) {
		return Agreement{}, newError(ErrShape, op, "the shapes differ")
	}
	if got.DType() != want.DType() {
		return Agreement{}, newError(ErrDType, op, "the dtypes differ")
	}
	a := Agreement{Equal: true, Agrees: true, Tol: tol, Scale: 1}
	if got.DType() != Float32 {
		a.Tol = 0
	}
	g, w := got.Float64s(), want.Float64s()
	if normwise && a.Tol > 0 { // integers are equal or not: no scale to be relative to
		for _, v := range w {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				a.Scale = max(a.Scale, math.Abs(v))
			}
		}
	}
	worst := -1
	for i := range g {
		if math.Float64bits(g[i]) == math.Float64bits(w[i]) {
			continue
		}
		a.Equal = false
		a.Agrees = a.Agrees && AgreeValues(g[i]/a.Scale, w[i]/a.Scale, a.Tol)
		abs, rel := gap(g[i], w[i])
		a.MaxAbs = max(a.MaxAbs, abs)
		if worst < 0 || rel > a.MaxRel {
			worst, a.MaxRel = i, rel
		}
	}
	if worst >= 0 {
		a.At, a.Got, a.Want = got.Shape().Unravel(worst), g[worst], w[worst]
	}
	return a, nil
}

// Words says how got compares with other (for example "the CPU
// reference"; "" leaves the words without an object):
//
//	equals the CPU reference                      (Equal)
//	agrees with the CPU reference within 1e-5     (Agrees; then the largest
//	  (largest difference 2e-6 at [1 2])           difference and where)
//	differs from the CPU reference: NaN against 0 at [0] (difference +Inf, tolerance 1e-5)
//
// "equals" is kept for bit-equal values: a result that only agrees says
// within what.
func (a Agreement) Words(other string) string {
	with, from := "", ""
	if other != "" {
		other, with, from = " "+other, " with", " from"
	}
	switch {
	case a.Equal:
		return "equals" + other
	case a.Agrees && a.MaxAbs == 0:
		return fmt.Sprintf("agrees%s%s within %s (the same values in other bits: %s against %s at %v)", with, other, a.tolWords(), number(a.Got), number(a.Want), a.At)
	case a.Agrees:
		return fmt.Sprintf("agrees%s%s within %s (largest difference %s at %v)", with, other, a.tolWords(), number(a.MaxAbs), a.At)
	}
	return fmt.Sprintf("differs%s%s: %s against %s at %v (difference %s, tolerance %s)", from, other, number(a.Got), number(a.Want), a.At, number(a.MaxAbs), a.tolWords())
}

// tolWords spells the tolerance: "1e-5", or "1e-5 of 23.5, the largest
// |value|" when it is relative to the tensor's scale (AgreeNormwise).
func (a Agreement) tolWords() string {
	if a.Scale > 1 {
		return number(a.Tol) + " of " + number(a.Scale) + ", the largest |value|"
	}
	return number(a.Tol)
}

// number spells x in the fewest digits that read back as x at the
// narrowest width that holds it (float32 for a float32 element, so
// 1000.001 and not 1000.0009765625; float64 for an int32 past 2²⁴), the
// exponent's leading zero dropped (1e-5, not 1e-05) and an infinity's
// sign kept (+Inf).
func number(x float64) string {
	bits := 64
	if float64(float32(x)) == x || math.IsNaN(x) {
		bits = 32
	}
	s := strconv.FormatFloat(x, 'g', -1, bits)
	s = strings.Replace(s, "e-0", "e-", 1)
	return strings.Replace(s, "e+0", "e+", 1)
}
