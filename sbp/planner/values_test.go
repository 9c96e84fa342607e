package planner

import (
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestFromUniformRuns: a program's `from uniform` input holds
// tensor.Uniform(name, shape) on the simulated devices, bit for bit,
// whatever its SBP (here split on both mesh dims, unevenly); its step
// says uniform; an input without from stays 0, 1, 2, …; a value given
// by name overrides uniform, as it does arange; and the backward runs.
func TestFromUniformRuns(t *testing.T) {
	plan := planned(t, "placement [[0,1],[2,3]]; w = input 5,7 (S(0), S(1)) from uniform; x = input 3,5 (B, B); v = input 7 (B, B) from uniform; y = matmul x w; z = add y v; s = sum z 1,1; grad s", Greedy)
	for _, s := range plan.Steps {
		want := map[string]string{"w": program.ValuesUniform, "v": program.ValuesUniform, "x": program.ValuesArange}[s.Name]
		if s.Kind == StepInput && s.Pass == graph.Forward && s.Values != want {
			t.Errorf("input step %s has values %q, want %q", s.Name, s.Values, want)
		}
	}
	got, err := plan.Run(tensor.CPU{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for _, c := range []struct {
		name  string
		shape tensor.Shape
		make  func(tensor.Shape) (tensor.Tensor, error)
	}{
		{"w", tensor.Shape{5, 7}, func(s tensor.Shape) (tensor.Tensor, error) { return tensor.Uniform("w", s) }},
		{"v", tensor.Shape{7}, func(s tensor.Shape) (tensor.Tensor, error) { return tensor.Uniform("v", s) }},
		{"x", tensor.Shape{3, 5}, func(s tensor.Shape) (tensor.Tensor, error) { return tensor.Arange(tensor.Float32, s) }},
	} {
		want, err := c.make(c.shape)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(got[c.name].Float64s(), want.Float64s()) {
			t.Errorf("%s = %v after the run, want %v", c.name, got[c.name].Float64s(), want.Float64s())
		}
	}
	if g, ok := got[graph.GradName("w")]; !ok || !g.Shape().Equal(tensor.Shape{5, 7}) {
		t.Errorf("grad of w: %v (present %v), want [5 7]", g.Shape(), ok)
	}

	given, err := tensor.FromSlice(tensor.Shape{7}, []float32{7, 6, 5, 4, 3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	over, err := plan.Run(tensor.CPU{}, Values{"v": given})
	if err != nil {
		t.Fatal(err)
	}
	defer over.Release()
	if v := over["v"].Float64s(); v[0] != 7 || v[6] != 1 {
		t.Errorf("v given as 7..1 ran as %v", v)
	}
}

// sameBits reports whether a and b (float32 values widened) hold the
// same bits, element for element.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(float32(a[i])) != math.Float32bits(float32(b[i])) {
			return false
		}
	}
	return true
}

// TestInputValueErrors: a file's values must be given, and given values
// must be float32 of the input's shape; each error names the input and
// the shapes.
func TestInputValueErrors(t *testing.T) {
	ints, err := tensor.Arange(tensor.Int32, tensor.Shape{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := tensor.Arange(tensor.Float32, tensor.Shape{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		step  Step
		given Values
		want  string
	}{
		{Step{Kind: StepInput, Name: "w", Shape: tensor.Shape{2, 3}, Values: "w.npy"}, nil, "input w comes from w.npy, but no values were given for it"},
		{Step{Kind: StepInput, Name: "w", Shape: tensor.Shape{2, 3}, Values: program.ValuesUniform}, Values{"w": wrong}, "input w is float32 [2 3] in the program, but the values given are float32 [3 2]"},
		{Step{Kind: StepInput, Name: "w", Shape: tensor.Shape{2, 3}, Values: program.ValuesArange}, Values{"w": ints}, "input w is float32 [2 3] in the program, but the values given are int32 [2 3]"},
	} {
		_, err := InputValue(c.step, c.given)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("InputValue(%s from %s) = %v, want %q", c.step.Name, c.step.Values, err, c.want)
		}
	}
	for _, v := range []string{program.ValuesArange, program.ValuesUniform, program.ValuesOnes, program.ValuesZeros} {
		if program.FromFile(v) {
			t.Errorf("FromFile(%q) = true, want false", v)
		}
	}
	if !program.FromFile("uniform.npy") {
		t.Error("FromFile(uniform.npy) = false, want true")
	}
}
