package program

import (
	"strings"
	"testing"
)

// TestUnaryBackward: each unary op's and mean's gradient is the few ops
// its rule says, in order (the ops of the backward before x's gradient is
// boxed to x's SBP), and the step's why says the formula.
func TestUnaryBackward(t *testing.T) {
	for _, c := range []struct {
		stmt string
		ops  string // the op words of the backward's steps
		why  string // in the why of the last op
	}{
		{"y = exp x", "mul", "dy/dx = grad · y"},
		{"y = log x", "div", "dy/dx = grad / x"},
		{"y = neg x", "neg", "dy/dx = -grad"},
		{"y = sqrt x", "div scale", "dy/dx = grad / (2·y)"},
		{"y = rsqrt x", "mul mul mul scale", "dy/dx = -grad · y³ / 2"},
		{"y = tanh x", "mul mul sub", "dy/dx = grad · (1 - y²)"},
		{"y = relu x", "step mul", "dy/dx = grad where x > 0"},
		{"y = mean x 1,3", "scale expand", "then expands it back"},
	} {
		src := "placement 2; x = input 4,3 S(0); " + c.stmt + "; grad y"
		plan := planned(t, src, Greedy)
		var ops []string
		last := Step{}
		for _, s := range plan.Steps {
			if s.Pass == Backward && s.Kind == StepOp {
				ops = append(ops, s.Op)
				last = s
			}
		}
		if got := strings.Join(ops, " "); got != c.ops {
			t.Errorf("%s: the backward runs %s, want %s", c.stmt, got, c.ops)
		}
		if !strings.Contains(last.Why, c.why) {
			t.Errorf("%s: the last step's why is %q, want it to say %q", c.stmt, last.Why, c.why)
		}
	}
	// mean's scale divides by the count each output averages.
	plan := planned(t, "placement 3; x = input 5,4 S(1); y = mean x 1,4; grad y", Greedy)
	for _, s := range plan.Steps {
		if s.Op == "scale" && !strings.Contains(s.Why, "divides grad by the 5 elements each output averages") {
			t.Errorf("mean's scale: %q", s.Why)
		}
	}
}
