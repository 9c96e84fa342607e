package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
)

// TestUnaryBackward: each unary op's and mean's gradient is the ops
// OneFlow writes for it (a *_grad op; neg's negative; mean's scalar_mul
// and broadcast_like), in order (the ops of the backward before x's gradient is
// boxed to x's SBP), and the step's why says the formula.
func TestUnaryBackward(t *testing.T) {
	for _, c := range []struct {
		stmt string
		ops  string // the op words of the backward's steps
		why  string // in the why of the last op
	}{
		{"y = exp x", "exp_grad", "dy/dx = grad · exp(x) (exp_grad)"},
		{"y = log x", "log_grad", "dy/dx = grad / x (log_grad)"},
		{"y = neg x", "neg", "dy/dx = -grad"},
		{"y = sqrt x", "sqrt_grad", "dy/dx = grad / (2·sqrt(x)) (sqrt_grad)"},
		{"y = rsqrt x", "rsqrt_grad", "dy/dx = -grad · rsqrt(x)³ / 2 (rsqrt_grad)"},
		{"y = tanh x", "tanh_grad", "dy/dx = grad · (1 - y²) (tanh_grad)"},
		{"y = relu x", "relu_grad", "dy/dx = grad where y > 0 (relu_grad)"},
		{"y = mean x 1,3", "scale broadcast_like", "then broadcasts it back like x (broadcast_like)"},
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

// TestBatchedMatmulBackward: a batched matmul's gradients are OneFlow's:
// matmuls with transpose flags, grad · c^T and a^T · grad, each summed
// like its operand over the batch dims it broadcast (reduce_sum_like),
// a^T · grad over the whole batch for a 2-D c (broadcast_matmul_grad_b),
// and named grad_X.y directly where nothing is summed.
func TestBatchedMatmulBackward(t *testing.T) {
	for _, c := range []struct {
		a, c  string // the inputs' shapes
		steps string // the backward's op steps: name = op inputs [shape]
	}{
		// the same batch: no sums
		{"2,4,3", "2,3,5", "grad_a.y = matmul_t grad_y c [2 4 3]; grad_c.y = matmul_t a grad_y [2 3 5]"},
		// a's size-1 batch dim and c's absent one broadcast: summed back
		{"3,1,4,5", "2,5,6", "tmp.1 = matmul_t grad_y c [3 2 4 5]; grad_a.y = reduce_sum_like tmp.1 a [3 1 4 5]; tmp.2 = matmul_t a grad_y [3 2 5 6]; grad_c.y = reduce_sum_like tmp.2 c [2 5 6]"},
		// a matrix times a batch: a's gradient sums over the batch
		{"4,5", "3,5,2", "tmp.1 = matmul_t grad_y c [3 4 5]; grad_a.y = reduce_sum_like tmp.1 a [4 5]; grad_c.y = matmul_t a grad_y [3 5 2]"},
		// a batch times a matrix: c's gradient over the whole batch
		{"3,4,5", "5,2", "grad_a.y = matmul_t grad_y c [3 4 5]; grad_c.y = broadcast_matmul_grad_b a grad_y [5 2]"},
	} {
		src := "placement 2; a = input " + c.a + " B; c = input " + c.c + " B; y = matmul a c; grad y"
		plan := planned(t, src, Greedy)
		var steps []string
		for _, s := range plan.Steps {
			if s.Pass == graph.Backward && s.Kind == StepOp {
				steps = append(steps, s.Name+" = "+s.Op+" "+strings.Join(s.Inputs, " ")+" "+s.Shape.String())
				if s.Op == "reduce_sum_like" && !strings.Contains(s.Why, "summed over the dims "+s.Inputs[1]+" broadcast (reduce_sum_like)") {
					t.Errorf("%s: %s's why is %q, want it to say it sums over the broadcast dims", src, s.Name, s.Why)
				}
			}
		}
		if got := strings.Join(steps, "; "); got != c.steps {
			t.Errorf("%s: the backward runs\n  %s\nwant\n  %s", src, got, c.steps)
		}
	}
}
