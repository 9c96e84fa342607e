package viz

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

const memoSrc = "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"

// TestPlanMemoSharesAPlan: the scenes of one program share one plan, made
// once; another strategy or another text is another plan.
func TestPlanMemoSharesAPlan(t *testing.T) {
	made := CountPlans(t)
	spec := Spec{Scene: "program", Values: map[string]string{"src": memoSrc}}
	a, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Step = 3
	b, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if made() != 1 || a.Model() != b.Model() || a.Work().(*ProgramWork).Plan != b.Model() {
		t.Errorf("two scenes of one program: %d plans, shared %v; want one plan, the model and the work's", made(), a.Model() == b.Model())
	}
	exact := Spec{Scene: "program", Values: map[string]string{"src": memoSrc, "strategy": "exact"}}
	if _, err := Build(exact); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Spec{Scene: "program", Values: map[string]string{"src": memoSrc + "\n"}}); err != nil {
		t.Fatal(err)
	}
	if made() != 3 {
		t.Errorf("the program under exact and spelt anew: %d plans in all, want 3", made())
	}
}

// TestPlanMemoKeysClusterAndCost: the cluster and the cost are part of
// the memo's key: a program on a cluster is timed there, under each cost
// a plan of its own; a preset and its JSON plan alike; the memory lines
// (a way of drawing the plan) share it, and a cluster of none plans as no
// cluster.
func TestPlanMemoKeysClusterAndCost(t *testing.T) {
	made := CountPlans(t)
	build := func(kv ...string) *planner.Plan {
		t.Helper()
		spec := example("program", append([]string{"src", memoSrc}, kv...)...)
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec.Values, err)
		}
		return s.Work().(*ProgramWork).Plan
	}
	plain := build()
	if plain.Cluster != nil || plain.Timing != nil || plain.Cost != planner.Bytes {
		t.Errorf("no cluster: cluster %v, timing %v, cost %q; want none and bytes", plain.Cluster, plain.Timing, plain.Cost)
	}
	timed := build("cluster", "h100-node")
	if timed.Cluster == nil || timed.Cluster.Name != "h100-node" || timed.Timing == nil || timed.Cost != planner.Time {
		t.Errorf("on h100-node: cluster %v, timing %v, cost %q; want h100-node, a timing and time", timed.Cluster, timed.Timing, timed.Cost)
	}
	byBytes := build("cluster", "h100-node", "cost", "bytes")
	if byBytes == timed || byBytes.Cost != planner.Bytes || byBytes.Timing == nil {
		t.Errorf("on h100-node under bytes: the time plan's %v, cost %q, timing %v", byBytes == timed, byBytes.Cost, byBytes.Timing)
	}
	if build("cluster", "h100-node") != timed || made() != 3 {
		t.Errorf("the three asked again: %d plans in all, want 3", made())
	}
	c, _ := cluster.Preset("h100-node")
	file, _ := c.File()
	if asJSON := build("cluster", string(file)); asJSON.Cluster.Name != "h100-node" || *asJSON.Timing != *timed.Timing {
		t.Errorf("h100-node as JSON: %+v, want the preset's timing %+v", asJSON.Timing, timed.Timing)
	}
	if build("cluster", "h100-node", "memory", "show") != timed {
		t.Errorf("the memory lines planned h100-node's program again")
	}
	if none := build("cluster", "none"); none.Cluster != nil || none.Timing != nil || none.Cost != planner.Bytes {
		t.Errorf("cluster none: cluster %v, timing %v, cost %q; want none and bytes", none.Cluster, none.Timing, none.Cost)
	}
}

// TestPlanMemoKeepsTheLastFew: the memo holds planMemoSize plans, the
// most recently asked for; an older one is planned again.
func TestPlanMemoKeepsTheLastFew(t *testing.T) {
	made := CountPlans(t)
	src := func(i int) string { return fmt.Sprintf("%s # %d", memoSrc, i) }
	for i := range planMemoSize + 1 {
		if _, err := plans.plan(context.Background(), planKey{src: src(i)}); err != nil {
			t.Fatal(err)
		}
		if i == planMemoSize-1 { // asking again for the first makes it the most recent
			if _, err := plans.plan(context.Background(), planKey{src: src(0)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if made() != planMemoSize+1 || len(plans.entries) != planMemoSize {
		t.Fatalf("%d sources: %d plans, %d kept; want %d and %d", planMemoSize+1, made(), len(plans.entries), planMemoSize+1, planMemoSize)
	}
	if _, err := plans.plan(context.Background(), planKey{src: src(0)}); err != nil || made() != planMemoSize+1 {
		t.Errorf("the first source, asked for again of late: %d plans, want it kept", made())
	}
	if _, err := plans.plan(context.Background(), planKey{src: src(1)}); err != nil || made() != planMemoSize+2 {
		t.Errorf("the second source, the oldest: %d plans, want it planned again", made())
	}
}

// TestPlanMemoKeepsErrors: a program that does not parse is refused
// once, with the error on its field each time.
func TestPlanMemoKeepsErrors(t *testing.T) {
	CountPlans(t) // a memo of its own
	spec := Spec{Scene: "program", Values: map[string]string{"src": "placement 4; x = input 16,8 S(0); w = input 4,4 B; y = matmul x w"}}
	var errs []error
	for range 2 {
		_, err := Build(spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "src" {
			t.Errorf("a matmul of 16,8 by 4,4: %v, want an error on src", err)
		}
		errs = append(errs, err)
	}
	if errs[0] != errs[1] {
		t.Errorf("built twice: two errors (%v), want the one kept", errs[1])
	}
}

// TestPlanMemoPlansOnceAtOnce: goroutines asking at once for one program
// wait for one plan.
func TestPlanMemoPlansOnceAtOnce(t *testing.T) {
	made := CountPlans(t)
	var wg sync.WaitGroup
	got := make([]*planner.Plan, 8)
	for i := range got {
		wg.Go(func() {
			p, err := plans.plan(context.Background(), planKey{src: memoSrc})
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	for _, p := range got {
		if p != got[0] {
			t.Fatal("goroutines got different plans of one program")
		}
	}
	if made() != 1 {
		t.Errorf("8 goroutines at once: %d plans, want 1", made())
	}
}

// TestBuildContextStopsAPlan: a program scene built under a context that
// has ended stops planning and says why (errors.Is the context's error),
// and the stopped plan is not kept: the same program built again plans
// it whole. Another scene kind does not plan, so it builds.
func TestBuildContextStopsAPlan(t *testing.T) {
	made := CountPlans(t)
	spec := Spec{Scene: "program", Values: map[string]string{"src": memoSrc, "strategy": "exact"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildContext(ctx, spec); !errors.Is(err, context.Canceled) {
		t.Fatalf("a program built under a cancelled context: %v; want context.Canceled", err)
	}
	s, err := Build(spec)
	if err != nil || made() != 2 {
		t.Fatalf("built again: %v after %d plans; want the plan made anew (2 plans)", err, made())
	}
	if s.Model().(*planner.Plan).ExactSendBytes == nil {
		t.Errorf("the plan made anew has no exact total")
	}
	ex, _ := Example("expand")
	if _, err := BuildContext(ctx, ex); err != nil {
		t.Errorf("an expand scene under a cancelled context: %v; want it built (nothing to plan)", err)
	}
}

// TestPlanMemoOutlivesAStoppedCaller: two callers wait for one plan; the
// first one's context ends while it plans: the second, whose context is
// live, plans the program itself and gets the whole plan.
func TestPlanMemoOutlivesAStoppedCaller(t *testing.T) {
	made := CountPlans(t)
	counted := newPlan
	started, release := make(chan struct{}), make(chan struct{})
	newPlan = func(ctx context.Context, p *program.Program, s planner.Strategy, o planner.Options) (*planner.Plan, error) {
		if made() == 0 { // the first caller's plan: it waits until its context has ended
			close(started)
			<-release
		}
		return counted(ctx, p, s, o)
	}
	defer func() { newPlan = counted }()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := plans.plan(ctx, planKey{src: memoSrc, strategy: "exact"}); first <- err }()
	<-started
	second := make(chan error, 1)
	go func() {
		_, err := plans.plan(context.Background(), planKey{src: memoSrc, strategy: "exact"})
		second <- err
	}()
	cancel()
	close(release)
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("the stopped caller: %v; want context.Canceled", err)
	}
	if err := <-second; err != nil || made() != 2 {
		t.Errorf("the caller whose context is live: %v after %d plans; want its own plan (2 plans)", err, made())
	}
}

// TestPlanMemoWaiterKeepsItsContext: a caller waiting for another's plan
// stops waiting when its own context ends, and the plan goes on for the
// one who makes it.
func TestPlanMemoWaiterKeepsItsContext(t *testing.T) {
	made := CountPlans(t)
	counted := newPlan
	started, release := make(chan struct{}), make(chan struct{})
	newPlan = func(ctx context.Context, p *program.Program, s planner.Strategy, o planner.Options) (*planner.Plan, error) {
		close(started)
		<-release
		return counted(ctx, p, s, o)
	}
	defer func() { newPlan = counted }()
	first := make(chan error, 1)
	go func() { _, err := plans.plan(context.Background(), planKey{src: memoSrc}); first <- err }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := plans.plan(ctx, planKey{src: memoSrc}); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter whose context ended: %v; want context.Canceled at once", err)
	}
	close(release)
	if err := <-first; err != nil || made() != 1 {
		t.Errorf("the caller who plans: %v after %d plans; want its plan, made once", err, made())
	}
}

// TestPlanMemoForgetsAPanic: a plan whose planning panicked is not kept:
// the panic goes on to the caller, and the next caller plans again.
func TestPlanMemoForgetsAPanic(t *testing.T) {
	made := CountPlans(t)
	counted := newPlan
	newPlan = func(ctx context.Context, p *program.Program, s planner.Strategy, o planner.Options) (*planner.Plan, error) {
		if made() == 0 {
			counted(ctx, p, s, o)
			panic("planned off the edge")
		}
		return counted(ctx, p, s, o)
	}
	defer func() { newPlan = counted }()
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("the panic did not reach the caller")
			}
		}()
		plans.plan(context.Background(), planKey{src: memoSrc})
	}()
	if p, err := plans.plan(context.Background(), planKey{src: memoSrc}); p == nil || err != nil || made() != 2 {
		t.Errorf("after a panic: plan %v, %v after %d plans; want a plan made anew (2 plans)", p != nil, err, made())
	}
}
