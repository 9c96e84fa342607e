package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
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
			if s.Pass == graph.Backward && s.Kind == StepOp {
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

// TestBatchedMatmulBackward: a batched matmul's gradients are
// grad · c^T and a^T · grad (transpose swaps each matrix of a batch),
// each summed over the batch dims its operand broadcast, and named
// grad_X.y directly where nothing is summed.
func TestBatchedMatmulBackward(t *testing.T) {
	for _, c := range []struct {
		a, c  string // the inputs' shapes
		steps string // the backward's op steps: name = op inputs [shape]
	}{
		// the same batch: no sums
		{"2,4,3", "2,3,5", "c.T = transpose c [2 5 3]; grad_a.y = matmul grad_y c.T [2 4 3]; a.T = transpose a [2 3 4]; grad_c.y = matmul a.T grad_y [2 3 5]"},
		// a's size-1 batch dim and c's absent one broadcast: summed back
		{"3,1,4,5", "2,5,6", "c.T = transpose c [2 6 5]; tmp.1 = matmul grad_y c.T [3 2 4 5]; grad_a.y = sum tmp.1 [3 1 4 5]; a.T = transpose a [3 1 5 4]; tmp.2 = matmul a.T grad_y [3 2 5 6]; grad_c.y = sum tmp.2 [2 5 6]"},
		// a matrix times a batch: a's gradient sums over the batch
		{"4,5", "3,5,2", "c.T = transpose c [3 2 5]; tmp.1 = matmul grad_y c.T [3 4 5]; grad_a.y = sum tmp.1 [4 5]; a.T = transpose a [5 4]; grad_c.y = matmul a.T grad_y [3 5 2]"},
	} {
		src := "placement 2; a = input " + c.a + " B; c = input " + c.c + " B; y = matmul a c; grad y"
		plan := planned(t, src, Greedy)
		var steps []string
		for _, s := range plan.Steps {
			if s.Pass == graph.Backward && s.Kind == StepOp {
				steps = append(steps, s.Name+" = "+s.Op+" "+strings.Join(s.Inputs, " ")+" "+s.Shape.String())
				if s.Op == "sum" && !strings.Contains(s.Why, "summed over the broadcast dims to "+s.Shape.String()) {
					t.Errorf("%s: %s's why is %q, want it to say it sums over the broadcast dims", src, s.Name, s.Why)
				}
			}
		}
		if got := strings.Join(steps, "; "); got != c.steps {
			t.Errorf("%s: the backward runs\n  %s\nwant\n  %s", src, got, c.steps)
		}
	}
}
