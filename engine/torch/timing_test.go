package torch

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// TestCollectivesTimed runs every kind of boxing step — all-gather,
// all-to-all, all-reduce, reduce-scatter (all_reduce + slice) and a
// local slice — on 2 processes, the plan timed on the loopback preset:
// every collective of every boxing on every rank has a measured time
// above 0, of which the library's call is a part (above 0 where a call
// was made, 0 for the local slice), every boxing's time (engine.Times) is present beside its
// prediction, and the bytes are still the plan's. No time is held to a
// value: this machine is shared.
func TestCollectivesTimed(t *testing.T) {
	needTorch(t)
	src := "placement 2; x = input 64,32 S(0); y = box x B; a = input 64,32 S(0); z = box a S(1); p = input 16,8 P; q = box p B; c = input 16,8 P; r = box c S(0); b = input 8,4 B; u = box b S(1)"
	prog, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	loop, _ := cluster.Preset("loopback")
	pl, err := planner.NewPlanWith(prog, planner.Greedy, planner.Options{Cluster: &loop})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pooled(t, Options{}).Run(context.Background(), pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Values.Release()
	checkBytes(t, pl, res)
	ran := map[string]bool{}
	for _, r := range res.Ranks {
		for k, s := range r.Steps {
			if pl.Steps[k].Kind != planner.StepBoxing {
				continue
			}
			if len(s.Collectives) == 0 {
				t.Errorf("rank %d step %s: no collectives", r.Rank, s.Name)
			}
			for _, c := range s.Collectives {
				ran[c.Ran] = true
				if c.Time <= 0 || c.CallTime > c.Time || (c.CallTime > 0) != (c.Ran != "local") {
					t.Errorf("rank %d step %s: %s (%s) measured %v, %v in the call", r.Rank, s.Name, c.Collective, c.Ran, c.Time, c.CallTime)
				}
			}
		}
	}
	for _, want := range []string{"all_gather", "all_to_all_single", "all_reduce", "all_reduce+slice", "local"} {
		if !ran[want] {
			t.Errorf("no collective ran as %s: %v", want, ran)
		}
	}
	tm, err := engine.Times(pl, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Boxings) != 5 || tm.Cluster != "loopback" || tm.Processes != 2 || tm.MeasuredS <= 0 || tm.PredictedS <= 0 || tm.Ratio <= 0 {
		t.Fatalf("times: %d boxings on %q, %d processes, measured %g s, predicted %g s, ratio %g", len(tm.Boxings), tm.Cluster, tm.Processes, tm.MeasuredS, tm.PredictedS, tm.Ratio)
	}
	for _, b := range tm.Boxings {
		if b.MeasuredS <= 0 || len(b.Collectives) != 1 || len(b.Collectives[0].RankS) != 2 {
			t.Errorf("boxing %s: measured %g s, collectives %+v", b.Name, b.MeasuredS, b.Collectives)
		}
		if local := b.Collectives[0].Ran == "local"; local != (b.PredictedS == 0) {
			t.Errorf("boxing %s (%s): predicted %g s", b.Name, b.Collectives[0].Ran, b.PredictedS)
		}
		t.Logf("%s %s -> %s: predicted %.3g s, measured %.3g s", b.Name, b.From, b.To, b.PredictedS, b.MeasuredS)
	}
}

// TestTimedRunsLeaveTheRunAlone runs one program twice on 3 processes,
// with no timed runs (Options.TimeRuns < 0: each collective's own call
// is its time) and with 3: every value of the two runs has the same
// bits, and each equals the simulated run's; every collective of every
// rank ran the same call, handed, sent and received the same bytes and
// has the same note; only the timing differs (no runs, then 3, whose
// median is the time). The program has every collective, uneven shards
// (all_gather's padding) and P(max) and P(min) boxings.
func TestTimedRunsLeaveTheRunAlone(t *testing.T) {
	needTorch(t)
	src := "placement 3; x = input 7,5 S(0); y = box x B; a = input 7,5 S(0); z = box a S(1); p = input 7,5 P; q = box p B; c = input 7,5 P; r = box c S(0); m = input 4,5 P(max); n = box m S(1); k = input 4,5 P(min); j = box k B; b = input 7,5 B; u = box b S(1); v = box y P"
	pl := planOf(t, src, planner.Greedy)
	sim, err := engine.Sim{}.Run(context.Background(), pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Values.Release()
	var results [2]*engine.Result
	for i, runs := range []int{-1, 3} {
		res, err := pooled(t, Options{TimeRuns: runs}).Run(context.Background(), pl, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Values.Release()
		for _, a := range engine.Compare(res.Values, sim.Values) {
			if !a.Agrees {
				t.Errorf("%d timed runs: %s: %s", max(runs, 0), a.Name, a.Verdict("the simulated run's"))
			}
		}
		checkBytes(t, pl, res)
		results[i] = res
	}
	cold, warm := results[0], results[1]
	for _, a := range engine.Compare(warm.Values, cold.Values) {
		if !a.Equal {
			t.Errorf("%s: with 3 timed runs %s", a.Name, a.Verdict("without"))
		}
	}
	collectives := 0
	for pos := range cold.Ranks {
		for k, cs := range cold.Ranks[pos].Steps {
			ws := warm.Ranks[pos].Steps[k]
			if len(ws.Collectives) != len(cs.Collectives) {
				t.Fatalf("rank %d step %s: %d collectives with timed runs, %d without", pos, cs.Name, len(ws.Collectives), len(cs.Collectives))
			}
			for j, c := range cs.Collectives {
				w := ws.Collectives[j]
				collectives++
				if w.Ran != c.Ran || w.HandedBytes != c.HandedBytes || w.SendBytes != c.SendBytes || w.RecvBytes != c.RecvBytes || w.Note != c.Note ||
					w.PlanSendBytes != c.PlanSendBytes || w.PlanRecvBytes != c.PlanRecvBytes {
					t.Errorf("rank %d step %s %s: with timed runs ran %s, handed %d, sent %d, received %d, note %q; without %s, %d, %d, %d, %q",
						pos, cs.Name, c.Collective, w.Ran, w.HandedBytes, w.SendBytes, w.RecvBytes, w.Note, c.Ran, c.HandedBytes, c.SendBytes, c.RecvBytes, c.Note)
				}
				if len(c.Runs) != 0 || c.Time != c.FirstTime || c.CallTime != c.FirstCallTime {
					t.Errorf("rank %d step %s %s without timed runs: runs %v, time %v, first %v, call %v, first call %v", pos, cs.Name, c.Collective, c.Runs, c.Time, c.FirstTime, c.CallTime, c.FirstCallTime)
				}
				if len(w.Runs) != 3 || w.Time != sortedRuns(w.Runs)[1] || w.FirstTime <= 0 || w.CallTime > w.Time {
					t.Errorf("rank %d step %s %s with 3 timed runs: runs %v, time %v (want their median), first %v, call %v", pos, cs.Name, c.Collective, w.Runs, w.Time, w.FirstTime, w.CallTime)
				}
			}
		}
	}
	if collectives < 3*8 {
		t.Errorf("%d collectives compared, want every boxing's on every rank", collectives)
	}
	for i, res := range results {
		tm, err := engine.Times(pl, res)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range tm.Boxings {
			for _, c := range b.Collectives {
				if want := 3 * i; c.Runs != want || c.FirstS <= 0 || c.MeasuredS <= 0 {
					t.Errorf("%d timed runs: boxing %s %s: %d runs, first %g s, measured %g s", want, b.Name, c.Collective, c.Runs, c.FirstS, c.MeasuredS)
				}
			}
		}
	}
}

// sortedRuns is runs in increasing order, in a new slice.
func sortedRuns(runs []time.Duration) []time.Duration {
	s := slices.Clone(runs)
	slices.Sort(s)
	return s
}
