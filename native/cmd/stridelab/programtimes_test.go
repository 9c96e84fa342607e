package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// timedRun is pl's report skeleton (engine.Planned) with every
// collective timed 1 ms on every device, half of it in the call, and
// its first call 4 ms: what writeTimes reads of a run.
func timedRun(t *testing.T, pl *planner.Plan) *engine.Result {
	t.Helper()
	ranks, err := engine.Planned(pl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ranks {
		for _, s := range r.Steps {
			for j := range s.Collectives {
				s.Collectives[j].Time, s.Collectives[j].CallTime, s.Collectives[j].FirstTime = time.Millisecond, time.Millisecond/2, 4*time.Millisecond
			}
		}
	}
	return &engine.Result{Engine: "torch", Ranks: ranks}
}

// TestWriteTimesTable: the table's shape. A line saying what is compared
// and how it was timed, the column heads, a row per boxing numbered as
// the plan's table numbers its steps, a row per collective under a
// boxing of several (one per mesh dim it crosses), and the total; with
// no cluster "-" where a prediction would be, and a hint to name one.
// No run, and nothing printed without one.
func TestWriteTimesTable(t *testing.T) {
	const src = "placement [[0,1],[2,3]]; x = input 8,6 (S(0), S(1)); y = box x (B, B); w = input 8,6 (S(0), B); z = box w (B, B)"
	for _, clusterArg := range []string{"tpu-v5e", ""} {
		prog, err := program.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		opts, err := planOptions(clusterArg, "")
		if err != nil {
			t.Fatal(err)
		}
		pl, err := planner.NewPlanWith(prog, planner.Greedy, opts)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := writeTimes(&buf, pl, timedRun(t, pl)); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		head := "predicted on tpu-v5e against measured on 4 torch.distributed processes ("
		if clusterArg == "" {
			head = "measured on 4 torch.distributed processes ("
		}
		if len(lines) != 7 || !strings.HasPrefix(lines[0], head) || !strings.Contains(lines[0], "barrier") {
			t.Fatalf("--cluster %q: %d lines, want 7 starting %q:\n%s", clusterArg, len(lines), head, buf.String())
		}
		if clusterArg == "" && !strings.Contains(lines[0], "--cluster NAME|FILE") {
			t.Errorf("no cluster: the first line does not say how to name one: %s", lines[0])
		}
		if f := strings.Fields(lines[1]); strings.Join(f, " ") != "step boxing shape from -> to collectives sent predicted measured in the call first call measured/predicted" {
			t.Errorf("column heads %q", lines[1])
		}
		// y: two all-gathers, 2 ms measured (1 ms each, on the slowest
		// device); then a row per mesh dim; z: one all-gather along dim 0.
		rows := []struct{ prefix, measured string }{
			{"2 y [8 6] (S(0), S(1)) -> (B, B) all-gather + all-gather 576 B", "2.00 ms 1.00 ms 8.00 ms"},
			{"mesh dim 1 all-gather", "1.00 ms 500 µs 4.00 ms"},
			{"mesh dim 0 all-gather", "1.00 ms 500 µs 4.00 ms"},
			{"4 z [8 6] (S(0), B) -> (B, B) all-gather", "1.00 ms 500 µs 4.00 ms"},
			{"total 2 boxings", "3.00 ms 1.50 ms 12.0 ms"},
		}
		for i, want := range rows {
			line := strings.Join(strings.Fields(lines[2+i]), " ")
			if !strings.HasPrefix(line, want.prefix) || !strings.Contains(line, " "+want.measured+" ") {
				t.Errorf("--cluster %q row %d: %q, want %q … %s …", clusterArg, i, line, want.prefix, want.measured)
			}
			f := strings.Fields(line)
			ratio, pred := f[len(f)-1], f[len(f)-9]+" "+f[len(f)-8]
			if clusterArg == "" && (ratio != "-" || !strings.HasSuffix(line, " - "+want.measured+" -")) {
				t.Errorf("no cluster, row %d: %q, want - for the prediction and the ratio", i, line)
			}
			if clusterArg != "" && (ratio == "-" || !strings.HasSuffix(pred, "µs")) {
				t.Errorf("tpu-v5e, row %d: %q: predicted %q, ratio %q", i, line, pred, ratio)
			}
		}
	}
	var buf bytes.Buffer
	if err := writeTimes(&buf, nil, nil); err != nil || buf.Len() != 0 {
		t.Errorf("no run: %v, %q", err, buf.String())
	}
}

// TestProgramTimesTorch runs a program of two boxings on 2 torch
// processes with --cluster loopback: the report ends with the predicted
// against measured table (a row per boxing and the total), and --json
// carries the plan with a "measured" field whose every boxing has a
// prediction, a measured time above 0 per device, and a ratio.
func TestProgramTimesTorch(t *testing.T) {
	needTorch(t)
	args := []string{"sbp", "program", "--src", "placement 2; x = input 64,32 S(0); y = box x B; p = input 16,8 P; q = box p B", "--engine", "torch", "--cluster", "loopback"}
	out := runCLI(t, args...)
	at := strings.Index(out, "\npredicted on loopback against measured on 2 torch.distributed processes")
	if at < 0 {
		t.Fatalf("no predicted against measured table in:\n%s", out)
	}
	var rows []string
	for _, line := range strings.Split(out[at+1:], "\n")[2:] {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "2" || f[0] == "4" || f[0] == "total") {
			rows = append(rows, f[0]+" "+f[1])
		}
	}
	if strings.Join(rows, ", ") != "2 y, 4 q, total 2" {
		t.Errorf("rows %q, want y, q and the total, in:\n%s", rows, out[at:])
	}

	var plan struct {
		Steps    []map[string]any `json:"steps"`
		Peak     []int64          `json:"peak_held_bytes"`
		Measured *engine.Timed    `json:"measured"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append(args, "--json")...)), &plan); err != nil {
		t.Fatal(err)
	}
	m := plan.Measured
	if len(plan.Steps) != 4 || len(plan.Peak) != 2 || m == nil {
		t.Fatalf("--json: %d steps, peak %v, measured %v", len(plan.Steps), plan.Peak, m)
	}
	if m.Engine != "torch" || m.Processes != 2 || m.Cluster != "loopback" || len(m.Boxings) != 2 || m.MeasuredS <= 0 || m.Ratio <= 0 {
		t.Errorf("measured: %+v", *m)
	}
	for _, b := range m.Boxings {
		if b.PredictedS <= 0 || b.MeasuredS <= 0 || b.CallS <= 0 || b.CallS > b.MeasuredS || b.Ratio <= 0 || len(b.Collectives) != 1 || plan.Steps[b.Step]["name"] != b.Name {
			t.Errorf("boxing %+v", b)
			continue
		}
		for pos, s := range b.Collectives[0].RankS {
			if s <= 0 {
				t.Errorf("boxing %s: device %d measured %g s", b.Name, pos, s)
			}
		}
	}
}
