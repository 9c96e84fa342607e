package sbp

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// The ops the backward pass needs list exactly these signatures.
func TestGradOpSignatures(t *testing.T) {
	for _, c := range []struct {
		op     Op
		shapes []tensor.Shape
		want   string // the signatures, one per line
	}{
		{Transpose(), []tensor.Shape{{4, 3}}, "S(0) -> S(1); S(1) -> S(0); B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Transpose(), []tensor.Shape{{0, 1}}, "S(0) -> S(1); S(1) -> S(0); B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Transpose(), []tensor.Shape{{4, 3, 2}}, "S(0) -> S(0); S(1) -> S(2); S(2) -> S(1); B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Transpose(), []tensor.Shape{{4}}, ""},
		{Permute([]int{2, 0, 1}), []tensor.Shape{{4, 3, 2}}, "S(0) -> S(1); S(1) -> S(2); S(2) -> S(0); B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Permute([]int{}), []tensor.Shape{{}}, "B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Permute([]int{0, 0}), []tensor.Shape{{4, 3}}, ""},
		{Scale(-1), []tensor.Shape{{4, 3}}, "S(0) -> S(0); S(1) -> S(1); B -> B; P(sum) -> P(sum); P(max) -> P(min); P(min) -> P(max)"},
		{Scale(0.5), []tensor.Shape{{7}}, "S(0) -> S(0); B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Scale(0), []tensor.Shape{{2, 1, 3}}, "S(0) -> S(0); S(1) -> S(1); S(2) -> S(2); B -> B; P(sum) -> P(sum)"},
		{Scale(1e-50), []tensor.Shape{{2}}, "S(0) -> S(0); B -> B; P(sum) -> P(sum)"}, // 0 in float32
		{Scale(3), []tensor.Shape{{}}, "B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"},
		{Scale(math.Inf(1)), []tensor.Shape{{2}}, ""},
		{Scale(math.NaN()), []tensor.Shape{{2}}, ""},
		{RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}, "S(1) -> S(0); S(0) -> P(sum); S(2) -> P(sum); B -> B; P(sum) -> P(sum)"},
		{RepeatGrad([]int{3, 1}, tensor.Shape{2, 7}), []tensor.Shape{{6, 7}}, "S(1) -> S(1); B -> B; P(sum) -> P(sum)"},
		{RepeatGrad([]int{1, 1}, tensor.Shape{2, 7}), []tensor.Shape{{2, 7}}, "S(0) -> S(0); S(1) -> S(1); B -> B; P(sum) -> P(sum)"},
		{RepeatGrad([]int{2, 2}, tensor.Shape{}), []tensor.Shape{{2, 2}}, "S(0) -> P(sum); S(1) -> P(sum); B -> B; P(sum) -> P(sum)"},
		{RepeatGrad([]int{2, 2}, tensor.Shape{3, 4}), []tensor.Shape{{6, 8}}, "B -> B; P(sum) -> P(sum)"},
		{RepeatGrad([]int{2, 2}, tensor.Shape{3, 4}), []tensor.Shape{{6, 9}}, ""},
		{Binary(tensor.Eq), []tensor.Shape{{4, 1}, {3}}, "S(0) x B -> S(0); B x S(0) -> S(1); B x B -> B"},
		{Binary(tensor.Eq), []tensor.Shape{{4, 3}, {4, 3}}, "S(0) x S(0) -> S(0); S(1) x S(1) -> S(1); B x B -> B"},
	} {
		var got []string
		for _, s := range c.op.Signatures(c.shapes) {
			got = append(got, s.String())
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%v %v: signatures\n  %s\nwant\n  %s", c.op, c.shapes, strings.Join(got, "; "), c.want)
		}
	}
}

// inferCase is an op on inputs of shapes laid out as in (one input) on
// two devices: want is the output shape and SBP, or the error's telling
// phrases, of kind.
type inferCase struct {
	op     Op
	shapes []tensor.Shape
	in     string
	want   string
	kind   error
}

// checkInfer runs Infer on each case and checks what it gives.
func checkInfer(t *testing.T, cases []inferCase) {
	t.Helper()
	two, _ := Devices(2)
	for _, c := range cases {
		in, _ := ParseNd(c.in)
		out, _, err := Infer(c.op, c.shapes, two, []NdSbp{in})
		var got string
		if err != nil {
			got = err.Error()
			if c.kind == nil || !errors.Is(err, c.kind) {
				t.Errorf("%v %v with %s: error %v, want kind %v", c.op, c.shapes, c.in, err, c.kind)
			}
		} else {
			shape, _ := c.op.OutShape(c.shapes)
			got = shape.String() + " " + out.String()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%v %v with %s:\n  %s\nwant it to contain\n  %s", c.op, c.shapes, c.in, got, c.want)
		}
	}
}

func TestGradOpShapesAndErrors(t *testing.T) {
	checkInfer(t, []inferCase{
		{Transpose(), []tensor.Shape{{4, 3}}, "S(0)", "[3 4] S(1)", nil},
		{Transpose(), []tensor.Shape{{4, 3, 2}}, "S(1)", "[4 2 3] S(2)", nil},
		{Transpose(), []tensor.Shape{{5}}, "B", "transpose [5]: transpose swaps the last two dims; the input [5] has 1", ErrShape},
		{Permute([]int{2, 0, 1}), []tensor.Shape{{4, 3, 2}}, "S(0)", "[2 4 3] S(1)", nil},
		{Permute([]int{2, 0, 1}), []tensor.Shape{{4, 3, 2}}, "P(max)", "[2 4 3] P(max)", nil},
		{Permute([]int{1, 0}), []tensor.Shape{{4, 3, 2}}, "B", "permute [4 3 2] by [1 0]: the order [1 0] has 2 entries for 3 dims: give each dim once", ErrShape},
		{Permute([]int{0, 3, 1}), []tensor.Shape{{4, 3, 2}}, "B", "the order [0 3 1] names dim 3; the input's dims are 0 to 2", ErrShape},
		{Permute([]int{1, 1, 0}), []tensor.Shape{{4, 3, 2}}, "B", "the order [1 1 0] names dim 1 twice", ErrShape},
		{Scale(-1), []tensor.Shape{{4, 3}}, "P(max)", "[4 3] P(min)", nil},
		{Scale(0), []tensor.Shape{{4, 3}}, "P(max)", "scale [4 3] by 0 with P(max): no signature takes P(max): a scale by 0 would turn", ErrSignature},
		{Scale(math.Inf(-1)), []tensor.Shape{{4, 3}}, "B", "scale [4 3] by -Inf: the factor must be a finite float32", ErrParse},
		{Scale(1e39), []tensor.Shape{{4, 3}}, "B", "finite float32, not 1e+39", ErrParse},
		{RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}, "S(2)", "[5 1] P(sum)", nil},
		{RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}, "P(max)", "sum of the tiles of a P(max) is not", ErrSignature},
		{RepeatGrad([]int{3, 2}, tensor.Shape{2, 7}), []tensor.Shape{{6, 14}}, "S(0)", "repeat_grad [6 14] (sum the tiles of repeat by [3 2]) with S(0): no signature takes S(0): dim 0 holds 3 tiles of 2; a device's part of it would cut tiles apart", ErrSignature},
		{RepeatGrad([]int{3, 2}, tensor.Shape{2, 7}), []tensor.Shape{{6, 7}}, "B", "the grad of repeat [2 7] by [3 2] has the repeat's output shape [6 14], not [6 7]", ErrShape},
		{RepeatGrad([]int{3}, tensor.Shape{2, 7}), []tensor.Shape{{6, 7}}, "B", "1 repeat counts for 2 dims", tensor.ErrShape},
	})
	if got := Scale(-1).String(); got != "scale by -1" {
		t.Errorf("Scale(-1).String() = %q", got)
	}
	if got := RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}).String(); got != "sum the tiles of repeat by [2 1 3]" {
		t.Errorf("RepeatGrad.String() = %q", got)
	}
	for _, op := range []Op{Transpose(), Permute([]int{1, 0}), Scale(2), RepeatGrad([]int{2}, tensor.Shape{3})} {
		if op.Arity() != 1 {
			t.Errorf("%v: arity %d", op, op.Arity())
		}
	}
}

// An integer tensor scales by a whole factor its dtype holds; where c·x
// would overflow, x is clamped first, so the lowest int32 scaled by -1 is
// the highest (max's identity becomes min's) and the order of values is
// kept (c > 0) or reversed (c < 0).
func TestScaleIntegers(t *testing.T) {
	i32, _ := tensor.FromSlice(tensor.Shape{5}, []int32{math.MinInt32, -7, 0, 5, math.MaxInt32})
	u32, _ := tensor.FromSlice(tensor.Shape{4}, []uint32{0, 3, 1 << 31, math.MaxUint32})
	f32, _ := tensor.FromSlice(tensor.Shape{3}, []float32{float32(math.Inf(-1)), 1.5, float32(math.Inf(1))})
	for _, c := range []struct {
		c    float64
		x    tensor.Tensor
		want []float64
		err  string
	}{
		{-1, i32, []float64{math.MaxInt32, 7, 0, -5, -math.MaxInt32}, ""},
		{2, i32, []float64{math.MinInt32, -14, 0, 10, math.MaxInt32 - 1}, ""},
		{-3, i32, []float64{math.MaxInt32 - 1, 21, 0, -15, math.MinInt32 + 2}, ""},
		{1, i32, []float64{math.MinInt32, -7, 0, 5, math.MaxInt32}, ""},
		{0, i32, []float64{0, 0, 0, 0, 0}, ""},
		{3, u32, []float64{0, 9, math.MaxUint32, math.MaxUint32}, ""},
		{-0.5, f32, []float64{math.Inf(1), -0.75, math.Inf(-1)}, ""},
		{0.5, i32, nil, "int32 tensors scale only by a whole number from -2147483648 to 2147483647, not 0.5"},
		{-1, u32, nil, "uint32 tensors scale only by a whole number from 0 to 4294967295, not -1"},
		{1 << 31, i32, nil, "not 2.147483648e+09"},
	} {
		op := Scale(c.c)
		got, err := op.Local(tensor.CPU{}, []tensor.Tensor{c.x}, c.x.Shape())
		switch {
		case c.err != "":
			if err == nil || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v of %v: error %v, want ErrParse with %q", op, c.x.DType(), err, c.err)
			}
		case err != nil:
			t.Errorf("%v of %v: %v", op, c.x.Float64s(), err)
		case got.DType() != c.x.DType() || !slices.Equal(got.Float64s(), c.want):
			t.Errorf("%v of %v %v = %v %v, want %v", op, c.x.DType(), c.x.Float64s(), got.DType(), got.Float64s(), c.want)
		}
	}
}

// Each device undoes the repeat its own shard came from: its repeat counts
// divide its input shard by its output shard.
func TestRepeatGradPlan(t *testing.T) {
	p, _ := Devices(3)
	op := RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1})
	for _, c := range []struct {
		in    string
		out   string
		ranks []string // per device: in shape, repeat counts, reduce target
	}{
		{"S(1)", "S(0)", []string{"[2 2 3] [2 1 3] [2 1]", "[2 2 3] [2 1 3] [2 1]", "[2 1 3] [2 1 3] [1 1]"}},
		{"S(2)", "P(sum)", []string{"[2 5 1] [2 1 1] [5 1]", "[2 5 1] [2 1 1] [5 1]", "[2 5 1] [2 1 1] [5 1]"}},
		{"S(0)", "P(sum)", []string{"[1 5 3] [1 1 3] [5 1]", "[1 5 3] [1 1 3] [5 1]", "[0 5 3] [0 1 3] [5 1]"}},
		{"B", "B", []string{"[2 5 3] [2 1 3] [5 1]", "[2 5 3] [2 1 3] [5 1]", "[2 5 3] [2 1 3] [5 1]"}},
	} {
		in, _ := ParseNd(c.in)
		plan, err := PlanOp(op, []tensor.Shape{{2, 5, 3}}, p, []NdSbp{in})
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if plan.OutSbp.String() != c.out {
			t.Errorf("%s: out %v, want %s", c.in, plan.OutSbp, c.out)
		}
		for r, rp := range plan.Ranks {
			got := rp.InShape.String() + " " + tensor.Shape(rp.RepeatTimes).String() + " " + rp.ReduceTo.String()
			if got != c.ranks[r] || !rp.OutShape.Equal(rp.ReduceTo) {
				t.Errorf("%s, device %d: %s (out %v), want %s", c.in, r, got, rp.OutShape, c.ranks[r])
			}
		}
	}
}
