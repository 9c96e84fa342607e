package engine

import (
	"slices"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// Agreement is how one named tensor of two runs compares: by
// tensor.AgreeNormwise at tensor.Tolerance (engines add partial values in
// other orders, so float32 sums may differ in their last bits, and where
// a sum cancels, relative to its terms, which the tensor's largest value
// stands for; sums of whole numbers agree bit for bit).
type Agreement struct {
	Name  string
	Shape tensor.Shape
	tensor.Agreement
	Problem string // why the two could not be compared (a name missing, another shape or dtype), or ""
}

// Verdict is the agreement in words: the problem, or tensor.Agreement's
// words against other ("equals other", "agrees with other within 1e-5
// (…)", "differs from other: …"; other may be "").
func (a Agreement) Verdict(other string) string {
	if a.Problem != "" {
		return a.Problem
	}
	return a.Words(other)
}

// Compare compares every value of got with want's, by name in sorted
// order: a name missing from either side, another shape or dtype, or a
// value that does not agree (tensor.AgreeNormwise at tensor.Tolerance)
// does not agree.
func Compare(got, want planner.Values) []Agreement {
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
			var err error
			if ag.Agreement, err = tensor.AgreeNormwise(a, b, tensor.Tolerance); err != nil {
				ag.Problem = err.Error()
			} else {
				ag.Shape = a.Shape()
			}
		}
		out = append(out, ag)
	}
	return out
}
