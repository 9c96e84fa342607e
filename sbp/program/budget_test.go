package program

import (
	"errors"
	"strings"
	"testing"

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
	p, err := Parse("placement 4\nx = input 256,256 B\ny = add x x\ngrad y")
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
	huge, err := Parse("placement 0-7\nx = input 1000000,1000000 S(0)\nw = input 1000000,16 B\ny = matmul x w\ns = sum y 1,1\ngrad s")
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
