package viz

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// CountPlans empties the memo of plans and counts the programs planned
// (planner.NewPlan) from now to t's end: it returns the count so far. It
// swaps a package variable, so no test that counts runs in parallel.
func CountPlans(t testing.TB) func() int {
	var n atomic.Int64
	was := newPlan
	forget := func() {
		plans.mu.Lock()
		plans.entries = nil
		plans.mu.Unlock()
	}
	forget()
	newPlan = func(ctx context.Context, p *program.Program, s planner.Strategy, o planner.Options) (*planner.Plan, error) {
		n.Add(1)
		return was(ctx, p, s, o)
	}
	t.Cleanup(func() { newPlan = was; forget() })
	return func() int { return int(n.Load()) }
}
