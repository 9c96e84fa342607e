package engine

import (
	"fmt"
	"math"
	"slices"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// Tolerance is how far two runs' values may differ and still agree:
// |a - b| <= Tolerance·(1 + max |b|) over the tensor. Engines add partial
// values in other orders (gloo's all-reduce, torch's summation), so
// float32 sums of fractions may differ in their last bits; values that
// are whole numbers (0, 1, 2, … inputs) agree exactly.
const Tolerance = 1e-5

// Agreement is how one tensor of two runs compares.
type Agreement struct {
	Name    string
	Shape   tensor.Shape
	MaxDiff float64 // the largest |a - b|; NaN against NaN counts as 0
	Agree   bool    // within Tolerance
	Problem string  // why it does not agree, or ""
}

// Compare compares every value of got with want's, by name in sorted
// order: a name missing from either side, another shape or dtype, or a
// difference past Tolerance does not agree.
func Compare(got, want program.Values) []Agreement {
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]Agreement, 0, len(names))
	for _, n := range names {
		ag := Agreement{Name: n}
		switch a, b := got[n], want[n]; {
		case !a.Valid():
			ag.Problem = "missing from the run"
		case !b.Valid():
			ag.Problem = "not in the values compared with"
		default:
			ag = CompareTensor(a, b)
			ag.Name = n
		}
		out = append(out, ag)
	}
	return out
}

// CompareTensor compares got with want: their shapes and dtypes, and the
// largest difference of their values against Tolerance.
func CompareTensor(got, want tensor.Tensor) Agreement {
	var ag Agreement
	if !got.Shape().Equal(want.Shape()) || got.DType() != want.DType() {
		ag.Problem = fmt.Sprintf("%v %v, but %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
		return ag
	}
	ag.Shape = got.Shape()
	x, y := got.Float64s(), want.Float64s()
	scale := 0.0
	for i := range x {
		ag.MaxDiff = max(ag.MaxDiff, diff(x[i], y[i]))
		if !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
			scale = max(scale, math.Abs(y[i]))
		}
	}
	ag.Agree = ag.MaxDiff <= Tolerance*(1+scale)
	if !ag.Agree {
		ag.Problem = fmt.Sprintf("differs by up to %g", ag.MaxDiff)
	}
	return ag
}

// diff is |a - b|, 0 for equal infinities and for NaN against NaN.
func diff(a, b float64) float64 {
	switch {
	case a == b, math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return math.Inf(1)
	}
	return math.Abs(a - b)
}
