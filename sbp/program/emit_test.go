package program

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// OneOp's program plans as the same program written out does.
func TestOneOp(t *testing.T) {
	p, _ := sbp.ParsePlacement("2")
	one, err := OneOp(p, sbp.Matmul(), []string{"a", "b"}, []tensor.Shape{{4, 6}, {6, 8}}, []sbp.NdSbp{{sbp.S(0)}, {sbp.S(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "placement cpu:[0, 1]\na = input 4,6 S(0)\nb = input 6,8 S(0)\ny = matmul a b"; one.Source != want {
		t.Errorf("source %q, want %q", one.Source, want)
	}
	parsed, err := Parse(one.Source)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewPlan(one, Greedy)
	b, _ := NewPlan(parsed, Greedy)
	if a.TotalSendBytes != b.TotalSendBytes || len(a.Steps) != len(b.Steps) || a.Steps[2].Kind != StepBoxing {
		t.Errorf("OneOp plans %+v, the written program %+v", a.Steps, b.Steps)
	}
	_, err = OneOp(p, sbp.Matmul(), []string{"a", "b"}, []tensor.Shape{{4, 6}, {5, 8}}, []sbp.NdSbp{{sbp.B}, {sbp.B}})
	if err == nil || err.Error() != "program: line 4, column 1: y = matmul a b: matmul [4 6] x [5 8]: a has 6 columns but b has 5 rows" {
		t.Errorf("a shape mismatch: %v", err)
	}
	_, err = OneOp(p, sbp.Expand([]int{4, 3}), []string{"x"}, []tensor.Shape{{4, 3}}, []sbp.NdSbp{{sbp.S(2)}})
	if err == nil || !strings.HasPrefix(err.Error(), "program: line 2, column 1: x = input 4,3 S(2): ") {
		t.Errorf("a bad SBP: %v", err)
	}
}

// An SBP the engine cannot spell names the statement that made it.
func TestEmitNamesTheStatement(t *testing.T) {
	prog, err := Parse("placement 4\nx = input 8,4 S(0)\nm = max x 1,4\ngrad m")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(prog, Greedy)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = plan.Emit(&b, "oneflow", EmitOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "program: line 3, column 1: m = max x 1,4: emit oneflow: OneFlow has only partial_sum") {
		t.Errorf("oneflow: %v", err)
	}
	if err := plan.Emit(&b, "pytorch", EmitOptions{Path: func(string) string { return "elsewhere" }}); err != nil || !strings.Contains(b.String(), `Partial("max")`) {
		t.Errorf("pytorch: %v\n%s", err, b.String())
	}
}
