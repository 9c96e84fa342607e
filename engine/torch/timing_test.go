package torch

import (
	"context"
	"testing"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/cluster"
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
	pl, err := program.NewPlanWith(prog, program.Greedy, program.Options{Cluster: &loop})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(Options{}).Run(context.Background(), pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Values.Release()
	checkBytes(t, pl, res)
	ran := map[string]bool{}
	for _, r := range res.Ranks {
		for k, s := range r.Steps {
			if pl.Steps[k].Kind != program.StepBoxing {
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
