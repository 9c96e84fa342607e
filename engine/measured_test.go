package engine_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// planOn plans src greedily on the preset cluster name.
func planOn(t *testing.T, src, name string) *planner.Plan {
	t.Helper()
	p, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := cluster.Preset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	pl, err := planner.NewPlanWith(p, planner.Greedy, planner.Options{Cluster: &c})
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// timedResult is the report skeleton of pl (engine.Planned) with every
// collective of step k on position pos timed at (k+1)·100 µs + pos·10 µs
// + j µs, j its index in the boxing, half of it in the call: the slowest
// device is the last.
func timedResult(t *testing.T, pl *planner.Plan) *engine.Result {
	t.Helper()
	ranks, err := engine.Planned(pl)
	if err != nil {
		t.Fatal(err)
	}
	for pos := range ranks {
		for k := range ranks[pos].Steps {
			for j := range ranks[pos].Steps[k].Collectives {
				c := &ranks[pos].Steps[k].Collectives[j]
				c.Time = time.Duration((k+1)*100+pos*10+j) * time.Microsecond
				c.CallTime = c.Time / 2
			}
		}
	}
	return &engine.Result{Engine: "torch", Ranks: ranks}
}

// TestTimes: per boxing, per collective, the measured time is the
// slowest device's and the boxing's their sum; the predicted times are
// the plan's (Step.TimeS and each collective's cluster.TimeBoxing step);
// ratios and totals follow, written out by hand here. On a 2×2 mesh
// (tpu-v5e, a link per mesh dim) a boxing of two collectives is timed
// collective by collective.
func TestTimes(t *testing.T) {
	for _, tc := range []struct{ src, cluster string }{
		{"placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s", "loopback"},
		{"placement [[0,1],[2,3]]; x = input 8,6 (S(0), S(1)); y = box x (B, B); z = box x (S(1), S(0))", "tpu-v5e"},
	} {
		pl := planOn(t, tc.src, tc.cluster)
		res := timedResult(t, pl)
		got, err := engine.Times(pl, res)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		n := pl.Program.Placement.Size()
		if got.Engine != "torch" || got.Processes != n || got.Cluster != tc.cluster {
			t.Errorf("%s: engine %q, %d processes, cluster %q", tc.src, got.Engine, got.Processes, got.Cluster)
		}
		var boxings, collectives int
		var predicted, measured, called float64
		for k, s := range pl.Steps {
			if s.Kind != planner.StepBoxing {
				continue
			}
			if boxings >= len(got.Boxings) {
				t.Fatalf("%s: %d boxings timed, the plan has more", tc.src, len(got.Boxings))
			}
			b := got.Boxings[boxings]
			boxings++
			if b.Step != k || b.Name != s.Name || !b.From.Equal(s.From) || !b.To.Equal(s.To) || b.SendBytes != s.SendBytes || b.PredictedS != s.TimeS {
				t.Errorf("%s: boxing %+v, want step %d %s %s -> %s, %d bytes, %g s", tc.src, b, k, s.Name, s.From, s.To, s.SendBytes, s.TimeS)
			}
			var sum, calls float64
			for j, c := range b.Collectives {
				collectives++
				slowest := float64((k+1)*100+(n-1)*10+j) * 1e-6
				if !near(c.MeasuredS, slowest) || len(c.RankS) != n || !near(c.RankS[0], float64((k+1)*100+j)*1e-6) {
					t.Errorf("%s: step %s collective %d measured %g, per device %v; want the slowest, %g", tc.src, s.Name, j, c.MeasuredS, c.RankS, slowest)
				}
				if want := s.BoxingTime.Steps[j].TimeS; c.PredictedS != want || !near(c.Ratio, slowest/want) {
					t.Errorf("%s: step %s collective %d predicted %g (ratio %g), want %g", tc.src, s.Name, j, c.PredictedS, c.Ratio, want)
				}
				if !near(c.CallS, slowest/2) {
					t.Errorf("%s: step %s collective %d: %g s in the call, want %g", tc.src, s.Name, j, c.CallS, slowest/2)
				}
				sum, calls = sum+slowest, calls+slowest/2
			}
			if !near(b.MeasuredS, sum) || !near(b.CallS, calls) || !near(b.Ratio, sum/s.TimeS) {
				t.Errorf("%s: step %s measured %g (ratio %g), want %g over %g", tc.src, s.Name, b.MeasuredS, b.Ratio, sum, s.TimeS)
			}
			predicted, measured, called = predicted+s.TimeS, measured+sum, called+calls
		}
		if boxings != len(got.Boxings) || collectives == 0 {
			t.Errorf("%s: %d boxings timed (%d collectives); the plan has %d", tc.src, len(got.Boxings), collectives, boxings)
		}
		if !near(got.PredictedS, predicted) || !near(got.MeasuredS, measured) || !near(got.CallS, called) || !near(got.Ratio, measured/predicted) {
			t.Errorf("%s: totals %g predicted, %g measured, ratio %g; want %g, %g", tc.src, got.PredictedS, got.MeasuredS, got.Ratio, predicted, measured)
		}
	}
}

// TestTimesRuns: with timed runs, a collective's measured time is taken
// as calibrate takes a point — run by run the slowest device's time,
// then their median — not the slowest device's median; its first call
// is the slowest device's first call, summed per boxing and in total.
// On 2 devices with runs (1, 5, 9) µs and (6, 2, 3) µs the slowest runs
// are 6, 5 and 9 µs, so the time is 6 µs (the slowest median is 5 µs).
func TestTimesRuns(t *testing.T) {
	pl := planOn(t, "placement 2; x = input 16,8 S(0); y = box x B; z = box x S(1)", "loopback")
	res := timedResult(t, pl)
	us := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Microsecond)
		}
		return d
	}
	runs := [][]time.Duration{us(1, 5, 9), us(6, 2, 3)}
	for pos := range res.Ranks {
		for k := range res.Ranks[pos].Steps {
			for j := range res.Ranks[pos].Steps[k].Collectives {
				c := &res.Ranks[pos].Steps[k].Collectives[j]
				c.Runs, c.Time = runs[pos], time.Duration(5-2*pos)*time.Microsecond // each device's own median
				c.FirstTime = time.Duration(100*(pos+1)) * time.Microsecond
			}
		}
	}
	got, err := engine.Times(pl, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Boxings) != 2 {
		t.Fatalf("%d boxings, want 2", len(got.Boxings))
	}
	for _, b := range got.Boxings {
		c := b.Collectives[0]
		if c.Runs != 3 || !near(c.MeasuredS, 6e-6) || !near(c.FirstS, 200e-6) || !near(b.MeasuredS, 6e-6) || !near(b.FirstS, 200e-6) {
			t.Errorf("boxing %s: %d runs, measured %g s, first %g s (boxing %g, %g); want 3, 6 µs, 200 µs", b.Name, c.Runs, c.MeasuredS, c.FirstS, b.MeasuredS, b.FirstS)
		}
		if !near(c.RankS[0], 5e-6) || !near(c.RankS[1], 3e-6) {
			t.Errorf("boxing %s: per device %v, want each device's own time", b.Name, c.RankS)
		}
	}
	if !near(got.MeasuredS, 12e-6) || !near(got.FirstS, 400e-6) {
		t.Errorf("totals: measured %g s, first %g s; want 12 µs, 400 µs", got.MeasuredS, got.FirstS)
	}
	res.Ranks[1].Steps[1].Collectives[0].Runs = us(1, 2)
	if _, err := engine.Times(pl, res); err == nil || !strings.Contains(err.Error(), "device 1 timed 2 runs") {
		t.Errorf("devices with different runs: %v", err)
	}
}

// TestMedian: the middle value, or the mean of the two middles; the
// slice is left as it was.
func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{9, 1, 5}, 5}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := slices.Clone(tc.v)
		if got := engine.Median(tc.v); got != tc.want || !slices.Equal(in, tc.v) {
			t.Errorf("Median(%v) = %g (slice now %v), want %g", in, got, tc.v, tc.want)
		}
	}
}

// TestTimesWithoutCluster: a plan on no cluster predicts nothing, so no
// ratio is given; Sim's run times no collective, so every measured time
// is 0.
func TestTimesWithoutCluster(t *testing.T) {
	pl, res := simRun(t, "placement 4; x = input 16,8 S(0); w = input 8,4 S(0); y = matmul x w")
	got, err := engine.Times(pl, res)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cluster != "" || got.Ratio != 0 || got.PredictedS != 0 || got.MeasuredS != 0 || len(got.Boxings) != 1 {
		t.Fatalf("%+v: want one boxing, nothing predicted or measured", got)
	}
	if b := got.Boxings[0]; b.Ratio != 0 || len(b.Collectives) != 1 || b.Collectives[0].Ran != "copy" || b.Collectives[0].MeasuredS != 0 {
		t.Errorf("%+v: want one all-gather, run as a copy, untimed", b)
	}
}

// TestTimesRefusesAnotherRun: a result that is not a run of the plan —
// another number of devices, of steps, of collectives — is one error.
func TestTimesRefusesAnotherRun(t *testing.T) {
	pl := planOn(t, "placement 4; x = input 16,8 S(0); w = input 8,4 S(0); y = matmul x w", "loopback")
	cases := []struct {
		name  string
		spoil func(r *engine.Result)
		want  string
	}{
		{"devices", func(r *engine.Result) { r.Ranks = r.Ranks[:3] }, "the result has 3 devices; the plan's placement has 4"},
		{"steps", func(r *engine.Result) { r.Ranks[2].Steps = r.Ranks[2].Steps[:1] }, "device 2 reports 1 steps"},
		{"collectives", func(r *engine.Result) {
			for k := range r.Ranks[1].Steps {
				r.Ranks[1].Steps[k].Collectives = nil
			}
		}, "device 1 ran 0 collectives"},
	}
	for _, tc := range cases {
		res := timedResult(t, pl)
		tc.spoil(res)
		if _, err := engine.Times(pl, res); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
	if _, err := engine.Times(pl, nil); err == nil {
		t.Error("no result: no error")
	}
}

// near reports whether a and b agree to 1e-9 relative (sums of float64
// seconds).
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1e-9, math.Max(math.Abs(a), math.Abs(b)))
}
