package planner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp/minsum"
	"github.com/stridelab/stridelab/sbp/program"
)

// TestPlanContextAlreadyDone: a plan whose context is already cancelled
// (or past its deadline) returns a program error wrapping the context's
// error under both strategies, and plans nothing.
func TestPlanContextAlreadyDone(t *testing.T) {
	p, err := program.Parse(mlp2x2)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{cancelled, context.Canceled}, {past, context.DeadlineExceeded}} {
		for _, s := range []Strategy{Greedy, Exact} {
			plan, err := NewPlanContext(c.ctx, p, s, Options{CompareBound: ComparisonBound})
			var pe *program.Error
			if plan != nil || !errors.Is(err, c.want) || !errors.As(err, &pe) {
				t.Errorf("%s: got %v, %v; want no plan and a *program.Error wrapping %v", s, plan, err, c.want)
			}
		}
	}
}

// TestPlanContextCancelledMidElimination: the 12-layer chain's exact
// plan is cancelled once half its work is done (counted in units of
// work, not wall time: the minsum.Poller's hook cancels there), and it stops at
// that very read: the hook is not called again, and the plan returns
// context.Canceled.
func TestPlanContextCancelledMidElimination(t *testing.T) {
	p, err := program.Parse(chain(12, "[[0,1,2,3],[4,5,6,7]]", "(S(0), B)", "(B, S(1))", "(B, B)"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	if _, err := NewPlanContext(context.Background(), p, Exact, Options{onPoll: func(done int) { total = done }}); err != nil {
		t.Fatal(err)
	}
	if total < 100*minsum.PollEvery {
		t.Fatalf("the whole plan is %d units of work; the test wants one long enough to stop halfway", total)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelledAt, after := 0, 0
	_, err = NewPlanContext(ctx, p, Exact, Options{onPoll: func(done int) {
		switch {
		case cancelledAt > 0:
			after++
		case done >= total/2:
			cancelledAt = done
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after %d of %d units: got %v, want context.Canceled", cancelledAt, total, err)
	}
	if after > 0 {
		t.Errorf("cancelled after %d of %d units, the plan read its context %d more times", cancelledAt, total, after)
	}
}
