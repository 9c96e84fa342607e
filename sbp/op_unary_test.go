package sbp

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func sigList(sigs []Signature) string {
	var s []string
	for _, x := range sigs {
		s = append(s, x.String())
	}
	return strings.Join(s, "; ")
}

// The unary ops and mean list exactly these signatures, and OneFlow's
// lists (EagerSignatures) are the splits alone, then all-B, for the unary
// ops, and reduce_sum's for mean.
func TestUnaryAndMeanSignatures(t *testing.T) {
	for _, c := range []struct {
		op     Op
		shapes []tensor.Shape
		want   string // Signatures
		eager  string // EagerSignatures
	}{
		{Unary(tensor.Neg), []tensor.Shape{{4, 3}},
			"S(0) -> S(0); S(1) -> S(1); B -> B; P(sum) -> P(sum)",
			"S(0) -> S(0); S(1) -> S(1); B -> B"},
		{Unary(tensor.Exp), []tensor.Shape{{4, 3}},
			"S(0) -> S(0); S(1) -> S(1); B -> B; P(max) -> P(max); P(min) -> P(min)",
			"S(0) -> S(0); S(1) -> S(1); B -> B"},
		{Unary(tensor.Tanh), []tensor.Shape{{7}}, "S(0) -> S(0); B -> B; P(max) -> P(max); P(min) -> P(min)", "S(0) -> S(0); B -> B"},
		{Unary(tensor.Relu), []tensor.Shape{{2, 1, 3}},
			"S(0) -> S(0); S(1) -> S(1); S(2) -> S(2); B -> B; P(max) -> P(max); P(min) -> P(min)",
			"S(0) -> S(0); S(1) -> S(1); S(2) -> S(2); B -> B"},
		{Unary(tensor.Step), []tensor.Shape{{5}}, "S(0) -> S(0); B -> B; P(max) -> P(max); P(min) -> P(min)", "S(0) -> S(0); B -> B"},
		{Unary(tensor.Log), []tensor.Shape{{4, 3}}, "S(0) -> S(0); S(1) -> S(1); B -> B", "S(0) -> S(0); S(1) -> S(1); B -> B"},
		{Unary(tensor.Sqrt), []tensor.Shape{{6}}, "S(0) -> S(0); B -> B", "S(0) -> S(0); B -> B"},
		{Unary(tensor.Rsqrt), []tensor.Shape{{}}, "B -> B", "B -> B"},
		{Unary(tensor.UnaryOp(99)), []tensor.Shape{{3}}, "", "B -> B"},
		// mean is sum's: kept axes split, reduced ones to P(sum); OneFlow's
		// reduce_sum emits P -> P once per reduced axis.
		{Mean(tensor.Shape{4, 6, 5}, tensor.Shape{1, 6, 1}), []tensor.Shape{{4, 6, 5}},
			"S(1) -> S(1); S(0) -> P(sum); S(2) -> P(sum); B -> B; P(sum) -> P(sum)",
			"S(0) -> P(sum); P(sum) -> P(sum); S(1) -> S(1); S(2) -> P(sum); P(sum) -> P(sum); B -> B"},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{6}), []tensor.Shape{{4, 6}},
			"S(1) -> S(0); S(0) -> P(sum); B -> B; P(sum) -> P(sum)",
			"S(0) -> P(sum); P(sum) -> P(sum); S(1) -> S(0); B -> B"},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{6}), []tensor.Shape{{4, 5}}, "", "B -> B"},
	} {
		if got := sigList(c.op.Signatures(c.shapes)); got != c.want {
			t.Errorf("%v %v: signatures\n  %s\nwant\n  %s", c.op, c.shapes, got, c.want)
		}
		if got := sigList(EagerSignatures(c.op, c.shapes)); got != c.eager {
			t.Errorf("%v %v: OneFlow's list\n  %s\nwant\n  %s", c.op, c.shapes, got, c.eager)
		}
	}
}

// Inputs no signature takes are refused saying why, and mean refuses an
// input of another shape than its own and integer tensors.
func TestUnaryAndMeanErrors(t *testing.T) {
	checkInfer(t, []inferCase{
		{Unary(tensor.Neg), []tensor.Shape{{4, 3}}, "P", "[4 3] P(sum)", nil},
		{Unary(tensor.Neg), []tensor.Shape{{4, 3}}, "P(max)", "neg does not carry the int32 identity a part of a P(max) may hold to the other partial's", ErrSignature},
		{Unary(tensor.Exp), []tensor.Shape{{4, 3}}, "P(max)", "[4 3] P(max)", nil},
		{Unary(tensor.Exp), []tensor.Shape{{4, 3}}, "S(1)", "[4 3] S(1)", nil},
		{Unary(tensor.Exp), []tensor.Shape{{4, 3}}, "P", "exp [4 3] with P(sum): no signature takes P(sum): exp(x₁ + x₂) is not exp(x₁) + exp(x₂): exp is not linear, and only neg passes P(sum); the valid ones are S(0) -> S(0)", ErrSignature},
		{Unary(tensor.Log), []tensor.Shape{{4, 3}}, "P(max)", "log is NaN below 0, and a part of a P(max) may hold any value past the whole", ErrSignature},
		{Unary(tensor.Relu), []tensor.Shape{{4, 3}}, "P", "relu is not linear", ErrSignature},
		{Unary(tensor.UnaryOp(99)), []tensor.Shape{{4, 3}}, "B", `unary op "UnaryOp(99)"`, tensor.ErrParse},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{1, 6}), []tensor.Shape{{4, 6}}, "S(0)", "[1 6] P(sum)", nil},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{1, 6}), []tensor.Shape{{4, 6}}, "S(1)", "[1 6] S(1)", nil},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{1, 6}), []tensor.Shape{{4, 6}}, "P(max)", "mean [4 6] to [1 6] with P(max): no signature takes P(max): the mean of a P(max) is not the max of each part's mean", ErrSignature},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{1, 6}), []tensor.Shape{{4, 7}}, "B", "mean [4 7] to [1 6]: this mean averages a tensor of shape [4 6], not [4 7]", ErrShape},
		{Mean(tensor.Shape{4, 6}, tensor.Shape{2, 6}), []tensor.Shape{{4, 6}}, "B", "[2 6]", tensor.ErrShape},
	})
	for _, c := range []struct {
		op   Op
		want string
	}{{Unary(tensor.Tanh), "tanh"}, {Mean(tensor.Shape{3}, tensor.Shape{}), "mean to []"}} {
		if got := c.op.String(); got != c.want || c.op.Arity() != 1 {
			t.Errorf("%v: String %q, arity %d", c.op, got, c.op.Arity())
		}
	}
}

// Mean divides each device's sum by the logical count: the partial sums
// of a split reduced axis add up to the mean. A mean of no elements is
// NaN; integers are refused.
func TestMeanLocal(t *testing.T) {
	x, _ := tensor.FromSlice(tensor.Shape{2, 3}, []float32{1, 2, 3, 4, 5, 9})
	op := Mean(tensor.Shape{2, 3}, tensor.Shape{2, 1})
	y, err := op.Local(tensor.CPU{}, []tensor.Tensor{x}, tensor.Shape{2, 1})
	if err != nil || !slices.Equal(y.Float64s(), []float64{2, 6}) {
		t.Errorf("mean of %v to [2 1] = %v (%v), want [2 6]", x.Float64s(), y.Float64s(), err)
	}
	// Device 1 of S(1) on 2 devices holds column 2: its part is 3/3, 9/3.
	part, _ := x.Narrow(1, 2, 3)
	y, err = op.Local(tensor.CPU{}, []tensor.Tensor{part}, tensor.Shape{2, 1})
	if err != nil || !slices.Equal(y.Float64s(), []float64{1, 3}) {
		t.Errorf("device 1's part of the mean = %v (%v), want [1 3]", y.Float64s(), err)
	}
	empty, _ := tensor.Zeros(tensor.Float32, tensor.Shape{2, 0})
	y, err = Mean(tensor.Shape{2, 0}, tensor.Shape{2, 1}).Local(tensor.CPU{}, []tensor.Tensor{empty}, tensor.Shape{2, 1})
	if err != nil || !math.IsNaN(y.Float64s()[0]) {
		t.Errorf("mean of nothing = %v (%v), want NaN", y.Float64s(), err)
	}
	i, _ := tensor.Arange(tensor.Int32, tensor.Shape{2, 3})
	if _, err := op.Local(tensor.CPU{}, []tensor.Tensor{i}, tensor.Shape{2, 1}); !errors.Is(err, tensor.ErrDType) || !strings.Contains(err.Error(), "mean takes float32 tensors, not int32") {
		t.Errorf("mean of int32: %v", err)
	}
}
