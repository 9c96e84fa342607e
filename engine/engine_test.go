package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

func plan(t *testing.T, src string) *planner.Plan {
	t.Helper()
	p, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := planner.NewPlan(p, planner.Greedy)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestSimIsPlanRun: Sim's values are planner.Plan.Run's (and so the
// single device's), and the bytes its simulated collectives moved, per
// device and collective, are the bytes the plan counts: the simulation
// runs each collective as the plan counts it (the all-reduce as a
// reduce-scatter then an all-gather), so the two agree exactly.
func TestSimIsPlanRun(t *testing.T) {
	for _, src := range []string{
		"placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s",
		"placement [[0,1],[2,3]]; x = input 6,5 (S(0), S(1)); y = box x (S(1), B); z = box x (P, S(0)); grad y",
		"placement 3; x = input 7,5 S(1); y = box x S(0); z = box y P(max)",
		// All-reduces of 13·17 and 7 elements and a reduce-scatter, all uneven.
		"placement 4; x = input 13,17 P; y = box x B; z = box x S(1); v = input 7 P(max); u = box v B",
	} {
		pl := plan(t, src)
		res, err := engine.Sim{}.Run(context.Background(), pl, nil)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		want, err := pl.Reference(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range engine.Compare(res.Values, want) {
			if !a.Equal {
				t.Errorf("%s: %s: %s", src, a.Name, a.Verdict(""))
			}
		}
		res.Values.Release()
		want.Release()
		if res.Engine != "sim" || len(res.Ranks) != pl.Program.Placement.Size() {
			t.Fatalf("%s: engine %q with %d ranks", src, res.Engine, len(res.Ranks))
		}
		var moved int64
		for k, s := range pl.Steps {
			for pos, r := range res.Ranks {
				sr := r.Steps[k]
				if sr.Index != k || sr.Name != s.Name || sr.Kind != s.Kind {
					t.Errorf("%s: rank %d step %d is %d %s %s, want %s %s", src, r.Rank, k, sr.Index, sr.Name, sr.Kind, s.Name, s.Kind)
				}
				sent, planSent := sr.Sent()
				recv, planRecv := sr.Received()
				if s.Kind != planner.StepBoxing {
					if len(sr.Collectives) != 0 {
						t.Errorf("%s: a %s step with collectives", src, s.Kind)
					}
					continue
				}
				if got := len(sr.Collectives); got != len(s.Collectives) && s.Collectives[0] != "none" {
					t.Errorf("%s: step %s has %d collectives, the plan %v", src, s.Name, got, s.Collectives)
				}
				for _, c := range sr.Collectives {
					if c.SendBytes != c.PlanSendBytes || c.RecvBytes != c.PlanRecvBytes || c.Note != "" {
						t.Errorf("%s: step %s rank %d, %s on mesh dim %d: moved %d B out and %d B in, the plan counts %d and %d (%s)",
							src, s.Name, r.Rank, c.Collective, c.MeshDim, c.SendBytes, c.RecvBytes, c.PlanSendBytes, c.PlanRecvBytes, c.Note)
					}
				}
				if sent != s.Ranks[pos].SendBytes || recv != s.Ranks[pos].RecvBytes || planSent != sent || planRecv != recv {
					t.Errorf("%s: step %s rank %d: moved %d B out and %d B in, the plan's step counts %d and %d", src, s.Name, r.Rank, sent, recv, s.Ranks[pos].SendBytes, s.Ranks[pos].RecvBytes)
				}
				moved += sent
			}
		}
		if moved != pl.TotalSendBytes || moved == 0 {
			t.Errorf("%s: the devices moved %d B in all, the plan %d", src, moved, pl.TotalSendBytes)
		}
	}
}

func TestSimRefusesADoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (engine.Sim{}).Run(ctx, plan(t, "placement 2; x = input 4 S(0)"), nil); err == nil {
		t.Fatal("a cancelled run ran")
	}
}

func TestCompare(t *testing.T) {
	a, _ := tensor.FromSlice(tensor.Shape{3}, []float32{1, 2, 3})
	b, _ := tensor.FromSlice(tensor.Shape{3}, []float32{1, 2, 3.5})
	c, _ := tensor.FromSlice(tensor.Shape{3}, []float32{1, 2, 3 + 1e-6})
	d, _ := tensor.FromSlice(tensor.Shape{1, 3}, []float32{1, 2, 3})
	// a sum that cancels to 0.8 from terms near 100 is held to the
	// tensor's scale: 5e-4 apart is within 1e-5 of 100
	e, _ := tensor.FromSlice(tensor.Shape{3}, []float32{100, 2, 0.8})
	f, _ := tensor.FromSlice(tensor.Shape{3}, []float32{100, 2, 0.8005})
	g, _ := tensor.FromSlice(tensor.Shape{3}, []float32{100, 2, 0.81})
	got := engine.Compare(planner.Values{"a": a, "b": a, "c": a, "d": a, "e": e, "g": e, "only": a}, planner.Values{"a": a, "b": b, "c": c, "d": d, "e": f, "g": g, "other": a})
	want := map[string]string{
		"a":     "equals",
		"b":     "differs: 3 against 3.5 at [2] (difference 0.5, tolerance 1e-5 of 3.5, the largest |value|)",
		"e":     "agrees within 1e-5 of 100, the largest |value| (largest difference 0.00049996376 at [2])",
		"g":     "differs: 0.8 against 0.81 at [2] (difference 0.00999999, tolerance 1e-5 of 100, the largest |value|)",
		"c":     "agrees within 1e-5 of 3.000001, the largest |value| (largest difference 9.536743e-7 at [2])",
		"d":     "tensor: compare float32 [3] with float32 [1 3]: the shapes differ",
		"only":  "not in the values compared with",
		"other": "missing from the run",
	}
	agrees := map[string]bool{"a": true, "c": true, "e": true}
	if len(got) != len(want) {
		t.Fatalf("got %d agreements, want %d", len(got), len(want))
	}
	for _, ag := range got {
		if ag.Verdict("") != want[ag.Name] || ag.Agrees != agrees[ag.Name] {
			t.Errorf("%s: got %q (agrees %v), want %q", ag.Name, ag.Verdict(""), ag.Agrees, want[ag.Name])
		}
	}
}

// simRun plans src greedily and runs it on Sim; its values are
// released when the test ends.
func simRun(t *testing.T, src string) (*planner.Plan, *engine.Result) {
	t.Helper()
	pl := plan(t, src)
	res, err := engine.Sim{}.Run(context.Background(), pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(res.Values.Release)
	return pl, res
}

func TestWriteTable(t *testing.T) {
	_, res := simRun(t, "placement 2; x = input 5,3 S(0); y = box x B")
	var b strings.Builder
	if err := engine.WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Rank 0 holds 3 rows of 3 float32 and sends them to rank 1: 36 bytes.
	for _, want := range []string{"rank", "all-gather", "copy", "36 B = plan", "24 B = plan", "note: sim:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}
