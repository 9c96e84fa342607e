package viz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/program"
)

// A program is planned once per edit, whoever builds its scene. One edit
// in the playground builds the scene twice in one wasm: the page's
// calls (wasm/jsapi: the fields checked, the scene's panel, the results)
// build it once, the frame's session (app/session) once more; a lesson
// builds its steps' scenes again as it checks and opens them. Planning
// is by far the dearest part of building a program scene, so Build takes
// the plan from a small memo of the last programs planned, keyed by what
// the plan is made from (planKey: the source as typed, the strategy, the
// cluster and the cost): the same text plans to the same plan, which every scene of it then shares (its layout at each size,
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

// planKey is what a plan is made from: the values of a program scene's
// keys src, strategy, cluster and cost, as given ("" for a default).
// The memo's key: another value of any of them is another plan.
type planKey struct {
	src, strategy, cluster, cost string
}

// planKeyOf is spec's planKey.
func planKeyOf(spec Spec) planKey {
	return planKey{src: spec.Get("src"), strategy: spec.Get("strategy"), cluster: spec.Get("cluster"), cost: spec.Get("cost")}
}

// planned is a planKey planned once: its plan, or why it does not plan
// (an error on the field it is about), set before done is closed.
type planned struct {
	planKey
	done chan struct{}
	plan *program.Plan
	err  error
}

// plan returns the plan k names, from the memo when it holds it,
// planned under ctx otherwise. A caller
// that waits for another's plan stops waiting when its own ctx is done.
// A plan that its context stopped, or whose planning panicked, is
// dropped from the memo; a caller that waited for it while its own
// context is live plans again.
func (m *planMemo) plan(ctx context.Context, k planKey) (*program.Plan, error) {
	for {
		e, mine := m.entry(k)
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
			e.plan, e.err = nil, fmt.Errorf("viz: planning %q panicked: %v", e.src, p)
			m.drop(e)
			panic(p)
		}
	}()
	e.plan, e.err = planProgram(ctx, e.planKey)
	if stopped(e.err) {
		m.drop(e)
	}
}

// entry returns the memo's entry for k, kept most recent, and whether
// it is new: its caller then plans it.
func (m *planMemo) entry(k planKey) (*planned, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var e *planned
	for i, p := range m.entries {
		if p.planKey == k {
			e = p
			copy(m.entries[1:i+1], m.entries[:i])
			break
		}
	}
	mine := e == nil
	if mine {
		e = &planned{planKey: k, done: make(chan struct{})}
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

// planProgram parses k's source and plans it with its strategy (greedy
// when ""), on its cluster (none when "" or "none") under its cost (the
// planner's default when ""), under ctx; an error is a *FieldError on
// the field it is about: a cluster that is no preset, or that has not a
// link per mesh dim of the program's placement, on cluster; a cost the
// planner refuses (time without a cluster) on cost.
func planProgram(ctx context.Context, k planKey) (*program.Plan, error) {
	prog, err := program.Parse(k.src)
	if err != nil {
		return nil, onField("src", err)
	}
	strategy := program.Greedy
	if k.strategy != "" {
		if strategy, err = program.ParseStrategy(k.strategy); err != nil {
			return nil, onField("strategy", err)
		}
	}
	o := program.Options{CompareBound: program.ComparisonBound}
	if o.Cluster, err = clusterOf(k.cluster); err != nil {
		return nil, onField("cluster", err)
	}
	if o.Cluster != nil {
		if err := o.Cluster.Check(prog.Placement); err != nil {
			return nil, onField("cluster", err, "src")
		}
	}
	if k.cost != "" {
		if o.Cost, err = program.ParseCost(k.cost); err != nil {
			return nil, onField("cost", err)
		}
		if o.Cost == program.Time && o.Cluster == nil {
			return nil, onField("cost", fmt.Errorf("program: cost time needs a cluster to time the steps on: pick one (%s), or cost bytes", strings.Join(cluster.PresetNames(), ", ")), "cluster")
		}
	}
	plan, err := newPlan(ctx, prog, strategy, o)
	if err != nil {
		if strategy == program.Exact {
			return nil, onField("strategy", err, "src")
		}
		return nil, onField("src", err)
	}
	return plan, nil
}

// noCluster is the cluster key's value for none, its default (written
// as no value).
const noCluster = "none"

// clusterOf is the cluster a cluster key's value names: nil for none
// ("" or "none"), a preset by its name, or a cluster file's JSON (what
// `stridelab draw --cluster FILE` reads the file into); anything else
// is cluster.Resolve's error, which lists the presets. viz reads no
// file: a scene is built alike in every front end.
func clusterOf(v string) (*cluster.Cluster, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == noCluster {
		return nil, nil
	}
	var c cluster.Cluster
	var err error
	if strings.HasPrefix(v, "{") {
		c, err = cluster.Parse("", []byte(v))
	} else {
		c, err = cluster.Resolve(v, nil)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// newPlan is program.NewPlanContext; a test counts the plans made
// through it.
var newPlan = program.NewPlanContext
