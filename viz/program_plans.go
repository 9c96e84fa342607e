package viz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// A program is planned once per edit, whoever builds its scene. One edit
// in the playground builds the scene twice in one wasm: the page's
// calls (wasm/jsapi: the fields checked, the scene's panel, the results)
// build it once, the frame's session (app/session) once more; a lesson
// builds its steps' scenes again as it checks and opens them. Planning
// is by far the dearest part of building a program scene, so Build takes
// the plan from a small memo of the last programs planned, keyed by the
// source as typed, the strategy, the cluster and the cost (planKey): the
// same text plans to the same plan, which every scene of it then shares (its layout at each size,
// its hot regions, report and words, and results.Compute through
// ProgramWork) and nobody changes.

// planMemoSize is how many plans the memo keeps: the edit on screen and
// the few before it (typing back to an earlier program, a lesson's step
// and its reveal), so that a gallery of programs typed through in turn
// cannot hold more than a handful of plans in memory. A plan keeps its
// steps and graph, not its search: the gallery's 2-D mesh program and
// Megatron's MLP keep some 20–30 KB each.
const planMemoSize = 4

// plans is the memo Build plans programs through.
var plans planMemo

// planMemo keeps the last planMemoSize plans made, the most recent
// first. A plan asked for while another goroutine makes it waits for
// that one instead of planning again.
type planMemo struct {
	mu      sync.Mutex
	entries []*planned
}

// planKey is what a program scene's plan is made from: the values of
// the keys src, strategy, cluster and cost as given ("" for a default).
type planKey struct {
	src, strategy, cluster, cost string
}

// planKeyOf is spec's planKey.
func planKeyOf(spec Spec) planKey {
	return planKey{src: spec.Get("src"), strategy: spec.Get("strategy"), cluster: spec.Get("cluster"), cost: spec.Get("cost")}
}

// planned is a program's key, planned once: its plan, or why it does not
// plan (an error on the field it is about), set before done is closed.
type planned struct {
	key  planKey
	done chan struct{}
	plan *planner.Plan
	err  error
}

// plan returns the plan of key's program, from the memo when it holds
// it, planned under ctx otherwise. A caller that waits for another's
// plan stops waiting when its own ctx is done. A plan that its context
// stopped, or whose planning panicked, is dropped from the memo; a
// caller that waited for it while its own context is live plans again.
func (m *planMemo) plan(ctx context.Context, key planKey) (*planner.Plan, error) {
	for {
		e, mine := m.entry(key)
		if mine {
			m.make(ctx, e)
		}
		select {
		case <-e.done:
		default: // another caller plans it: wait while ctx lives
			select {
			case <-e.done:
			case <-ctx.Done():
				return nil, onField("src", fmt.Errorf("program: planning stopped: %w", ctx.Err()))
			}
		}
		if stopped(e.err) && ctx.Err() == nil {
			continue // another caller's context stopped it: plan under ours
		}
		return e.plan, e.err
	}
}

// make plans e under ctx and closes e.done; a plan stopped by ctx, or a
// panic, takes e out of the memo (the panic goes on, e.err says it).
func (m *planMemo) make(ctx context.Context, e *planned) {
	defer close(e.done)
	defer func() {
		if p := recover(); p != nil {
			e.plan, e.err = nil, fmt.Errorf("viz: planning %q panicked: %v", e.key.src, p)
			m.drop(e)
			panic(p)
		}
	}()
	e.plan, e.err = planProgram(ctx, e.key)
	if stopped(e.err) {
		m.drop(e)
	}
}

// entry returns the memo's entry for key, kept most recent, and whether
// it is new: its caller then plans it.
func (m *planMemo) entry(key planKey) (*planned, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var e *planned
	for i, p := range m.entries {
		if p.key == key {
			e = p
			copy(m.entries[1:i+1], m.entries[:i])
			break
		}
	}
	mine := e == nil
	if mine {
		e = &planned{key: key, done: make(chan struct{})}
		if len(m.entries) < planMemoSize {
			m.entries = append(m.entries, nil)
		}
		copy(m.entries[1:], m.entries)
	}
	m.entries[0] = e
	return e, mine
}

// drop takes e out of the memo, if it is still there.
func (m *planMemo) drop(e *planned) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := slices.Index(m.entries, e); i >= 0 {
		m.entries = slices.Delete(m.entries, i, i+1)
	}
}

// stopped says whether err is a plan stopped by its context.
func stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// planProgram parses k's src and plans it with its strategy (greedy
// when "") on its cluster (none when "" or NoCluster) under its cost
// (planner.Cost's default when "") under ctx; an error is a *FieldError
// on the field it is about: a cluster that is no preset, or has not a
// link per mesh dim of the program's placement, on cluster; a cost the
// planner refuses (time without a cluster) on cost.
func planProgram(ctx context.Context, k planKey) (*planner.Plan, error) {
	prog, err := program.Parse(k.src)
	if err != nil {
		return nil, onField("src", err)
	}
	strategy := planner.Greedy
	if k.strategy != "" {
		if strategy, err = planner.ParseStrategy(k.strategy); err != nil {
			return nil, onField("strategy", err)
		}
	}
	o := planner.Options{CompareBound: planner.ComparisonBound}
	if k.cost != "" {
		if o.Cost, err = planner.ParseCost(k.cost); err != nil {
			return nil, onField("cost", err)
		}
	}
	if k.cluster != "" && k.cluster != NoCluster {
		c, err := ParseCluster(k.cluster)
		if err != nil {
			return nil, onField("cluster", err)
		}
		if err := c.Check(prog.Placement); err != nil {
			return nil, onField("cluster", err, "src")
		}
		o.Cluster = &c
	} else if o.Cost == planner.Time {
		return nil, onField("cost", fmt.Errorf("viz: cost time needs a cluster to time the steps on: pick one (%s), or cost bytes", strings.Join(cluster.PresetNames(), ", ")), "cluster")
	}
	plan, err := newPlan(ctx, prog, strategy, o)
	if err != nil {
		if strategy == planner.Exact {
			return nil, onField("strategy", err, "src")
		}
		return nil, onField("src", err)
	}
	return plan, nil
}

// NoCluster is the cluster key's value for none, its default (a front
// end writes it as no value).
const NoCluster = "none"

// ParseCluster reads the cluster key's value: a preset's name
// (cluster.Preset), or a cluster in the file form when it starts with
// "{" (cluster.Parse). The scene model reads no files: a front end that
// takes a file's path (stridelab draw --cluster FILE) passes its text.
func ParseCluster(v string) (cluster.Cluster, error) {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		return cluster.Parse("", []byte(v))
	}
	return cluster.Resolve(v, nil)
}

// newPlan is planner.NewPlanContext; a test counts the plans made
// through it.
var newPlan = func(ctx context.Context, p *program.Program, s planner.Strategy, o planner.Options) (*planner.Plan, error) {
	return planner.NewPlanContext(ctx, p, s, o)
}
