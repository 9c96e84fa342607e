package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// An SBP the engine cannot spell names the statement that made it.
func TestEmitNamesTheStatement(t *testing.T) {
	prog, err := program.Parse("placement 4\nx = input 8,4 S(0)\nm = max x 1,4\ngrad m")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(prog, Exact) // S(0) -> P(max): no bytes; OneFlow's own list has no P(max), so greedy never makes one

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

// A `from uniform` input is emitted for OneFlow and DTensor as the
// uniform() function's array (tensor.UniformPython, written once into
// the file), beside an arange input; without one the file has no such
// function.
func TestEmitFromUniform(t *testing.T) {
	plan := planned(t, "placement 2\nw = input 4,6 S(1) from uniform\nx = input 3,4 B\ny = matmul x w", Greedy)
	for _, engine := range []string{"oneflow", "pytorch"} {
		var b strings.Builder
		if err := plan.Emit(&b, engine, EmitOptions{}); err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		for _, want := range []string{"def uniform(name, shape):", `w = global_tensor(uniform("w", (4, 6)).astype(np.float32), `, "x = global_tensor(np.arange(12, dtype=np.float32).reshape((3, 4)), "} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: the program lacks %q:\n%s", engine, want, b.String())
			}
		}
		if n := strings.Count(b.String(), "def uniform("); n != 1 {
			t.Errorf("%s: uniform() is defined %d times, want once", engine, n)
		}
	}
	pp := planned(t, "placement 2\nx = input 3,4 B", Greedy)
	var b strings.Builder
	if err := pp.Emit(&b, "pytorch", EmitOptions{}); err != nil || strings.Contains(b.String(), "def uniform(") {
		t.Errorf("a program without from uniform: %v, uniform() defined: %v", err, strings.Contains(b.String(), "def uniform("))
	}
}
