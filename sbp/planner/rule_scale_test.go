package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
)

// TestScaleStatement: y = scale x C multiplies by a constant, which gets no
// gradient of its own (unlike an input laid out B): GELU's and attention's
// constants are written with it. Its backward is a scale of the gradient
// by C, and it keeps a partial sum partial, so Megatron's row-parallel
// output may be scaled before its all-reduce.
func TestScaleStatement(t *testing.T) {
	p, err := program.Parse("placement 2; x = input 4,6 S(0); y = scale x 0.5; z = scale y -2")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"y": "scale by 0.5", "z": "scale by -2"} {
		if s := p.Lookup(name); s.Word != "scale" || s.Op.String() != want || s.Shape.String() != "[4 6]" {
			t.Errorf("%s: %s %v %v, want scale %s [4 6]", name, s.Word, s.Op, s.Shape, want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"placement 2; x = input 4 B; y = scale x", "y = scale x: scale takes a name and a number: scale X 0.5"},
		{"placement 2; x = input 4 B; y = scale x half", `y = scale x half: scale's factor "half" is not a number`},
		{"placement 2; x = input 4 B; y = scale x 1e39", "y = scale x 1e39: scale [4] by 1e+39: the factor must be a finite float32, not 1e+39"},
		{"placement 2; x = input 4 B; y = scale w 2", "y = scale w 2: w is not defined"},
		{"placement 2; scale = input 4 B", `"scale" is a word of the language`},
	} {
		if _, err := program.Parse(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.src, err, c.want)
		}
	}

	plan := planned(t, "placement 4; x = input 8,4 S(1); w = input 4,4 S(0); y = matmul x w; z = scale y 0.25; s = sum z 1,1; grad s", Greedy)
	var scales []Step
	for _, s := range plan.Steps {
		if s.Kind == StepOp && s.Op == "scale" {
			scales = append(scales, s)
		}
	}
	if len(scales) != 2 {
		t.Fatalf("%d scale steps, want the forward's and the backward's", len(scales))
	}
	if f := scales[0]; f.Pass != graph.Forward || f.OutSbp.String() != "P(sum)" {
		t.Errorf("the forward's scale is %v %v, want the matmul's partial sum kept partial", f.Pass, f.OutSbp)
	}
	if b := scales[1]; b.Pass != graph.Backward || b.Name != "grad_y" || !strings.Contains(b.Why, "= grad · 0.25") {
		t.Errorf("the backward's scale is %s (%v): %q, want grad_y = grad · 0.25", b.Name, b.Pass, b.Why)
	}
}
