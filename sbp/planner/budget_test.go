package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestRunsPastTheBudgetAreRefused: a run is refused before anything is
// allocated when every tensor it holds, on every device, would pass the
// result budget, though each tensor alone fits; plans of any size are
// metadata and are made.
func TestRunsPastTheBudgetAreRefused(t *testing.T) {
	prev := tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 20, Source: "the test's"})
	defer tensor.SetMaxBytes(prev)
	// x is 256 KiB, and B on 4 devices holds it four times over.
	p, err := program.Parse("placement 4\nx = input 256,256 B\ny = add x x\ngrad y")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(p, Greedy)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []func() (Values, error){
		func() (Values, error) { return plan.Run(tensor.CPU{}, nil) },
		func() (Values, error) { return plan.Reference(nil) },
	} {
		v, err := run()
		if err == nil {
			v.Release()
			t.Fatal("a run past the budget ran")
		}
		if !errors.Is(err, tensor.ErrTooLarge) || !strings.Contains(err.Error(), "the limit is 1.00 MiB") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: want one line, tensor's budget error naming the limit", err)
		}
	}
	// A program of 10^12-element tensors plans at once: nothing is allocated.
	huge, err := program.Parse("placement 0-7\nx = input 1000000,1000000 S(0)\nw = input 1000000,16 B\ny = matmul x w\ns = sum y 1,1\ngrad s")
	if err != nil {
		t.Fatal(err)
	}
	hp, err := NewPlan(huge, Greedy)
	if err != nil {
		t.Fatal(err)
	}
	if err := hp.CheckBudget(); !errors.Is(err, tensor.ErrTooLarge) {
		t.Errorf("a 4 TB program's budget check: %v", err)
	}
}

// TestBudgetRefusalNamesTheStatement: the refusal names the line and
// statement of the first tensor that passes the budget (its name and
// shape in the detail), as every other program error does; a tensor of
// the backward names the grad statement.
func TestBudgetRefusalNamesTheStatement(t *testing.T) {
	prev := tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 20, Source: "the test's"})
	defer tensor.SetMaxBytes(prev)
	cases := []struct{ src, prefix, tensor string }{
		// big alone is 4 TB.
		{"placement 4\nx = input 8,8 B\nbig = input 1000000,1000000 S(0)\ny = add x x",
			"program: line 3, column 1: big = input 1000000,1000000 S(0): a run of the program on 4 devices: what it holds needs ", "big [1000000 1000000]"},
		// big is 512 KiB, on each of the 4 devices.
		{"placement 4; x = input 8,8 B; y = matmul x x; big = repeat y 2000,1", "program: line 1, column 47: big = repeat y 2000,1: ", "big [16000 8]"},
		// The forward holds x and y, 320 KiB each (four 64 KiB copies and
		// the logical value), and the backward's seed fits too (960 KiB):
		// the next gradient passes 1 MiB.
		{"placement 4\nx = input 128,128 B\ny = add x x\ngrad y", "program: line 4, column 1: grad y: ", "grad"},
	}
	for _, c := range cases {
		p, err := program.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(p, Greedy)
		if err != nil {
			t.Fatal(err)
		}
		err = plan.CheckBudget()
		if !errors.Is(err, tensor.ErrTooLarge) || !strings.HasPrefix(err.Error(), c.prefix) || !strings.Contains(err.Error(), c.tensor) {
			t.Errorf("%q: got %v, want %q… naming %s", c.src, err, c.prefix, c.tensor)
		}
	}
}
