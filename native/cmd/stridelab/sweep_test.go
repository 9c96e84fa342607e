package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/sbp/sweep"
)

// mlpSrc is a 2-layer MLP in bf16 with Adam, data parallel: its tokens
// split along dim 0, its weights whole.
const mlpSrc = "placement 4; optimizer adam; x = const 64,256 S(0) bf16; w1 = input 256,1024 B bf16; w2 = input 1024,256 B bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s"

// TestSweepRowsAreThePrograms: each row of `stridelab sweep --json` is
// `sbp program --cluster … --json` on that row's placement and cluster:
// the same time and the same peak; the plot is written.
func TestSweepRowsAreThePrograms(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "sweep.svg")
	var res sweep.Result
	if err := json.Unmarshal([]byte(runCLI(t, "sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--devices", "1,2,8,16", "--json", "--plot", plot)), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(res.Rows), res.Rows)
	}
	for _, r := range res.Rows {
		if r.Error != "" || r.TimeS <= 0 || !r.Fits || r.Layouts["w1"] != "B" || r.Layouts["x"] != "S(0)" {
			t.Errorf("%d devices: %+v", r.Devices, r)
			continue
		}
		p, err := sbp.ParsePlacement(r.Placement)
		if err != nil || p.Size() != r.Devices {
			t.Fatalf("%d devices: placement %q (%v)", r.Devices, r.Placement, err)
		}
		plan := planJSON(t, "--src", program.WithPlacement(mlpSrc, p), "--cluster", r.Cluster, "--strategy", "exact")
		var peak float64
		for _, b := range plan["peak_held_bytes"].([]any) {
			peak = max(peak, b.(float64))
		}
		if !near(plan["time_s"].(float64), r.TimeS) || int64(peak) != r.PeakHeldBytes {
			t.Errorf("%d devices on %s: the sweep says %g s and %d bytes, sbp program %g s and %.0f bytes", r.Devices, r.Cluster, r.TimeS, r.PeakHeldBytes, plan["time_s"], peak)
		}
	}
	if res.Rows[0].Scheme != "one device" || res.Rows[2].Scheme != "data parallel" {
		t.Errorf("schemes %q, %q; want one device, data parallel", res.Rows[0].Scheme, res.Rows[2].Scheme)
	}
	if want := []string{"h100-nodes:1", "h100-nodes:1", "h100-nodes:1", "h100-nodes:2"}; res.Rows[0].Cluster != want[0] || res.Rows[3].Cluster != want[3] {
		t.Errorf("clusters %s … %s, want %v", res.Rows[0].Cluster, res.Rows[3].Cluster, want)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "step time") {
		t.Errorf("the plot: %v, %d bytes", err, len(b))
	}
}

// TestSweepMesh2D: --mesh 2d lays n devices out as nodes by a node's
// GPUs, and its rows are planned there.
func TestSweepMesh2D(t *testing.T) {
	src := "placement [[0,1],[2,3]]; x = const 64,256 (S(0), B); w = input 256,512 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"
	var res sweep.Result
	if err := json.Unmarshal([]byte(runCLI(t, "sweep", "--src", src, "--cluster", "h100-nodes", "--devices", "4,16", "--mesh", "2d", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Placement != "[[0, 1, 2, 3]]" || !strings.HasPrefix(res.Rows[1].Placement, "[[0, 1, 2, 3, 4, 5, 6, 7], [8,") || res.Rows[1].Error != "" {
		t.Errorf("rows %+v", res.Rows)
	}
}

// TestSweepRefuses: every bad command line is one line.
func TestSweepRefuses(t *testing.T) {
	refuses(t, []refused{
		{[]string{"sweep", "--src", mlpSrc}, 2, "stridelab sweep: --cluster is required: a family (h100-nodes, tpu-v5e), a preset or a cluster file"},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--devices", "1,x"}, 2, `stridelab sweep: --devices "1,x": give device counts from 1, comma-separated (1,2,4,8)`},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--devices", "0"}, 2, `stridelab sweep: --devices "0": give device counts from 1`},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--mesh", "3d"}, 2, `stridelab sweep: --mesh "3d": choose 1d or 2d`},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--plot", "x.pdf"}, 2, "stridelab sweep: --plot x.pdf: write a .svg or a .png"},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h200"}, 1, "stridelab sweep: cluster h200: no preset of that name and no such file"},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--mesh", "2d"}, 1, "stridelab sweep: sweep: the program's placement cpu:[0, 1, 2, 3] is a 1-D mesh and its SBPs are written for one; a 2-D sweep needs a program written for a 2-D mesh"},
		{[]string{"sweep", "--src", "placement 2; x = input 4 B; y = exp x;", "--cluster", "h100-nodes", "--strategy", "best"}, 2, `stridelab sweep: --strategy "best": choose greedy or exact`},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--batch", "per-device"}, 2, "stridelab sweep: --batch per-device traces the model again at each count's batch: give --model (a program's shapes are fixed)"},
		{[]string{"sweep", "--src", mlpSrc, "--cluster", "h100-nodes", "--batch", "local"}, 2, `stridelab sweep: --batch "local": choose global or per-device`},
		{[]string{"sweep", "--src", mlpSrc, "--model", "m.py:M", "--cluster", "h100-nodes"}, 2, "stridelab sweep: give one of --file, --src and --model"},
		{[]string{"sweep", "--model", "m.py:M", "--example", "x=x.npy", "--cluster", "h100-nodes", "--batch", "per-device"}, 2, "stridelab sweep: --batch per-device multiplies each example's dim 0 by the device count: give --example x=DTYPE:SHAPE, not a file or a scalar"},
	})
	// A count past the family's largest is a row that says why, not a failure.
	var res sweep.Result
	if err := json.Unmarshal([]byte(runCLI(t, "sweep", "--src", mlpSrc, "--cluster", "tpu-v5e", "--devices", "4,512", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Error != "" || res.Rows[1].Error != "cluster tpu-v5e: a tpu-v5e slice holds at most 256 chips (16×16), not 512" {
		t.Errorf("rows %+v", res.Rows)
	}
}

// TestSweepTracesTheModelPerDevice: with --model and --batch per-device
// each count's row is the model traced at that many times the batch (its
// tokens a step grow with the devices), and equals `sbp program` of the
// same import on that placement. (A global batch's rows are the
// program's as written: TestSweepRowsAreThePrograms.)
func TestSweepTracesTheModelPerDevice(t *testing.T) {
	py := importPython(t)
	model := "../../../importer/testdata/tinygpt.py:TinyGPT"
	var res sweep.Result
	if err := json.Unmarshal([]byte(runCLI(t, "sweep", "--model", model, "--example", "idx=int64:2,16", "--example", "targets=int64:2,16", "--python", py,
		"--cluster", "h100-nodes", "--devices", "2,4", "--strategy", "greedy", "--json", "--batch", "per-device")), &res); err != nil {
		t.Fatal(err)
	}
	per := res.Rows
	if len(per) != 2 {
		t.Fatalf("%d rows, want 2", len(per))
	}
	for _, r := range per {
		if r.Error != "" || r.TimeS <= 0 {
			t.Fatalf("%d devices: %+v", r.Devices, r)
		}
		// tokens a step = tokens/s/device × step time × devices
		if got, want := r.TokensPerSPerDevice*r.TimeS*float64(r.Devices), 32.0*float64(r.Devices); !near(got, want) {
			t.Errorf("%d devices: %g tokens a step, want %g", r.Devices, got, want)
		}
	}
	out := filepath.Join(t.TempDir(), "m")
	runCLI(t, "import", "--model", model, "--example", "idx=int64:8,16", "--example", "targets=int64:8,16", "--python", py, "--placement", "4", "-o", out)
	plan := planJSON(t, "--file", filepath.Join(out, "model.st"), "--cluster", per[1].Cluster)
	if !near(plan["time_s"].(float64), per[1].TimeS) {
		t.Errorf("4 devices: the sweep says %g s, sbp program of the import at batch 8 %g s", per[1].TimeS, plan["time_s"])
	}
}
