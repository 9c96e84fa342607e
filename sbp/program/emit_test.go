package program

import (
	"strings"
	"testing"
)

// An SBP the engine cannot spell names the statement that made it.
func TestEmitNamesTheStatement(t *testing.T) {
	prog, err := Parse("placement 4\nx = input 8,4 S(0)\nm = max x 1,4\ngrad m")
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
