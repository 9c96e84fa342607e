package script

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/internal/pythontest"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// needTorch returns the interpreter the torch engine runs
// (torch.FindPython: one with torch and NumPy), or skips the test
// saying why; with STRIDELAB_REQUIRE_TORCH=1 (make test) it fails.
func needTorch(t *testing.T) string {
	t.Helper()
	return pythontest.Torch(t, torch.FindPython)
}

// planned parses src and plans it with strategy s.
func planned(t *testing.T, src string, s planner.Strategy) *planner.Plan {
	t.Helper()
	prog, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.NewPlan(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// written is plan written for e with opt; a fault fails the test.
func written(t *testing.T, plan *planner.Plan, e Engine, opt Options) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, plan, e, opt); err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	return b.String()
}
