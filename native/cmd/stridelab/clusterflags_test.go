package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
)

// meshSrc is a data-parallel matmul on a 2×2 mesh whose weight's
// gradient crosses mesh dim 0: on two-h100-nodes (dim 0 across
// InfiniBand, α 10 µs) the fewest bytes (an all-reduce of the partial
// gradient, 8 KiB: 2 ring steps, 20 µs) are not the least time (an
// all-gather of x.T before the matmul, 16 KiB: 1 ring step, 10 µs).
const meshSrc = "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, B); y = matmul x w; s = sum y 1,1; grad s"

// planJSON runs sbp program with args and --json, and decodes the plan.
func planJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var plan map[string]any
	if err := json.Unmarshal([]byte(runCLI(t, append(append([]string{"sbp", "program"}, args...), "--json")...)), &plan); err != nil {
		t.Fatal(err)
	}
	return plan
}

// near says whether a and b agree to a part in 10^9.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestProgramClusterJSON: with --cluster the plan's JSON has its cost,
// the cluster in the file form and its time (compute plus communication
// is the sum; the steps' times add up to it), every op step its time,
// FLOPs, bytes and bound, every boxing its time per collective, every
// difference each choice's time; without one none of them, and cost
// bytes.
func TestProgramClusterJSON(t *testing.T) {
	plan := planJSON(t, "--src", meshSrc, "--cluster", "two-h100-nodes", "--strategy", "exact")
	if plan["cost"] != "time" {
		t.Errorf("cost %v, want time (the default with a cluster)", plan["cost"])
	}
	want, _ := cluster.Preset("two-h100-nodes")
	b, _ := json.Marshal(plan["cluster"])
	if got, err := cluster.Parse("", b); err != nil || got.Name != want.Name || got.Links[0] != want.Links[0] || got.Device != want.Device {
		t.Errorf("cluster %s (%v), want two-h100-nodes' file form", b, err)
	}
	num := func(obj map[string]any, key string) float64 {
		t.Helper()
		v, ok := obj[key].(float64)
		if !ok {
			t.Errorf("no number %q in %v", key, obj)
		}
		return v
	}
	total, comm, compute, overlap := num(plan, "time_s"), num(plan, "comm_time_s"), num(plan, "compute_time_s"), num(plan, "overlap_time_s")
	if !near(total, comm+compute) || overlap > total || overlap < math.Max(comm, compute) || comm <= 0 || compute <= 0 {
		t.Errorf("time_s %g, comm_time_s %g, compute_time_s %g, overlap_time_s %g", total, comm, compute, overlap)
	}
	var steps, stepComm float64
	for i, v := range plan["steps"].([]any) {
		s := v.(map[string]any)
		switch s["kind"] {
		case "op":
			steps += num(s, "time_s")
			num(s, "mem_bytes")
			if s["bound"] != "compute" && s["bound"] != "memory" {
				t.Errorf("step %d: bound %v", i+1, s["bound"])
			}
			if s["op"] == "matmul" {
				num(s, "flops")
			}
		case "boxing":
			bt, ok := s["boxing_time"].(map[string]any)
			if !ok {
				t.Errorf("step %d: no boxing_time in %v", i+1, s)
				continue
			}
			took, _ := s["time_s"].(float64) // absent for a local boxing, which takes 0
			steps, stepComm = steps+took, stepComm+took
			if !near(took, num(bt, "time_s")) {
				t.Errorf("step %d: time_s %g, boxing_time's %v", i+1, took, bt["time_s"])
			}
			for _, st := range bt["steps"].([]any) {
				for _, k := range []string{"mesh_dim", "devices", "bytes", "alpha_s", "beta_bytes_per_s", "time_s"} {
					num(st.(map[string]any), k)
				}
			}
		default:
			if _, ok := s["time_s"]; ok {
				t.Errorf("step %d (%v) has a time_s", i+1, s["kind"])
			}
		}
	}
	if !near(steps, total) || !near(stepComm, comm) {
		t.Errorf("the steps take %g (boxings %g); the plan says %g (%g)", steps, stepComm, total, comm)
	}
	diffs, _ := plan["differences"].([]any)
	if len(diffs) == 0 {
		t.Fatal("no differences between greedy and exact on the mesh program")
	}
	for _, d := range diffs {
		for _, side := range []string{"greedy", "exact"} {
			num(d.(map[string]any)[side].(map[string]any), "time_s")
		}
	}

	plain := planJSON(t, "--src", meshSrc, "--strategy", "exact")
	if plain["cost"] != "bytes" {
		t.Errorf("no cluster: cost %v, want bytes", plain["cost"])
	}
	for _, k := range []string{"cluster", "time_s", "comm_time_s", "compute_time_s", "overlap_time_s"} {
		if _, ok := plain[k]; ok {
			t.Errorf("no cluster: the plan has %q", k)
		}
	}
	for _, v := range plain["steps"].([]any) {
		for _, k := range []string{"time_s", "boxing_time", "flops", "mem_bytes", "bound"} {
			if _, ok := v.(map[string]any)[k]; ok {
				t.Errorf("no cluster: a step has %q: %v", k, v)
			}
		}
	}
	plainDiffs, _ := plain["differences"].([]any) // none where greedy finds exact's plan
	for _, d := range plainDiffs {
		if _, ok := d.(map[string]any)["greedy"].(map[string]any)["time_s"]; ok {
			t.Errorf("no cluster: a difference has a time_s: %v", d)
		}
	}
}

// TestProgramCostTime: on two-h100-nodes exact under --cost bytes boxes
// the weight's partial gradient (the fewest bytes, two ring steps over
// InfiniBand), under --cost time (the default) it gathers x instead (for
// w's gradient, x^T · grad_y, a matmul with transpose_a): more bytes,
// less time.
func TestProgramCostTime(t *testing.T) {
	byBytes := planJSON(t, "--src", meshSrc, "--cluster", "two-h100-nodes", "--strategy", "exact", "--cost", "bytes")
	byTime := planJSON(t, "--src", meshSrc, "--cluster", "two-h100-nodes", "--strategy", "exact")
	sent := func(p map[string]any) float64 { return p["total_send_bytes"].(float64) }
	took := func(p map[string]any) float64 { return p["time_s"].(float64) }
	if sent(byBytes) >= sent(byTime) || took(byBytes) <= took(byTime) {
		t.Errorf("bytes: %v bytes in %g s; time: %v bytes in %g s; want fewer bytes but more time under bytes", sent(byBytes), took(byBytes), sent(byTime), took(byTime))
	}
	collectives := func(p map[string]any) string {
		var out []string
		for _, v := range p["steps"].([]any) {
			s := v.(map[string]any)
			if s["kind"] == "boxing" && s["send_bytes"].(float64) > 0 {
				out = append(out, s["tensor"].(string)+" "+s["collectives"].([]any)[0].(string))
			}
		}
		return strings.Join(out, ", ")
	}
	if got, want := collectives(byBytes), "grad_w.y all-reduce"; got != want {
		t.Errorf("under bytes the boxings that send are %q, want %q", got, want)
	}
	if got, want := collectives(byTime), "x all-gather"; got != want {
		t.Errorf("under time the boxings that send are %q, want %q", got, want)
	}
	if byBytes["cost"] != "bytes" || byTime["cost"] != "time" {
		t.Errorf("cost %v and %v", byBytes["cost"], byTime["cost"])
	}
}

// TestProgramClusterReport: on a cluster the table gains a time and a
// bound-or-link column, and the report the plan's time on the cluster
// and each choice's time where the strategies differ; without one the
// report has none of it.
func TestProgramClusterReport(t *testing.T) {
	out := runCLI(t, "sbp", "program", "--src", meshSrc, "--cluster", "two-h100-nodes", "--strategy", "exact")
	out = regexp.MustCompile(`  +`).ReplaceAllString(out, "  ") // the table's columns two spaces apart
	contains(t, "the report on two-h100-nodes", out,
		"send bytes  time  bound or link\n",
		"  y = matmul x w  [64 16]  (S(0), S(0)) x (B, B) -> (S(0), S(0))  S(0) x B -> S(0); S(0) x B -> S(0)  1.53 ns  memory\n",
		"  box x for y  [64 32]  (S(0), B) -> (S(0), S(0))  local-slice  0  0  local\n",
		"  box x for grad_w.y  [64 32]  (S(0), B) -> (B, B)  all-gather  16384  10.1 µs  mesh dim 0\n",
		"\ntime on two-h100-nodes: compute 9.78 ns + communication 10.1 µs = 10.1 µs (summed: no overlap)\n",
		"\noverlapped: 10.1 µs (each boxing beside the compute that does not wait for it); exact minimises time (--cost)\n",
		"\ngreedy takes 20.0 µs, exact 10.1 µs\n",
		"grad_w.y (backward): greedy S(0) x S(0) -> P(sum); B x B -> B, boxing 0 bytes before it, 2.45 ns in all; exact B x B -> B; B x B -> B, boxing 16384 bytes, 10.1 µs in all\n")
	plain := runCLI(t, "sbp", "program", "--src", meshSrc, "--strategy", "exact")
	for _, not := range []string{"time", "bound or link", "overlapped", " ns", "µs", " in all"} {
		if strings.Contains(plain, not) {
			t.Errorf("the report without a cluster has %q:\n%s", not, plain)
		}
	}
}

// TestSbpBoxingCluster: sbp boxing --cluster times each step on the link
// of its mesh dim (the ring formula by hand), and --json adds the
// cluster and boxing_time; without --cluster neither.
func TestSbpBoxingCluster(t *testing.T) {
	args := []string{"sbp", "boxing", "--shape", "1024,1024", "--from", "(S(0), P)", "--to", "(B, S(1))", "--placement", "[[0,1,2,3],[4,5,6,7]]"}
	out := runCLI(t, append(args, "--cluster", "two-h100-nodes")...)
	// reduce-scatter of 2 MiB over 4 devices along NVLink: 3·3 µs + 3/4·2 MiB/450 GB/s;
	// all-gather of 1 MiB over 2 devices along InfiniBand: 10 µs + 1/2·1 MiB/50 GB/s.
	rs := 3*3e-6 + 0.75*(2<<20)/4.5e11
	ag := 1e-5 + 0.5*(1<<20)/5e10
	contains(t, "sbp boxing --cluster", out,
		"  step 1: reduce-scatter along mesh dim 1, (S(0), P(sum)) -> (S(0), S(1))\n          on 4 devices: S 2.00 MiB, α 3.00 µs, β 450 GB/s: "+cluster.FormatSeconds(rs)+"\n",
		"  step 2: all-gather along mesh dim 0, (S(0), S(1)) -> (B, S(1))\n          on 2 devices: S 1.00 MiB, α 10.0 µs, β 50 GB/s: "+cluster.FormatSeconds(ag)+"\n",
		"time on two-h100-nodes: "+cluster.FormatSeconds(rs+ag)+" (the steps one after another)\n")
	var timed struct {
		Cluster    *cluster.Cluster    `json:"cluster"`
		BoxingTime *cluster.BoxingTime `json:"boxing_time"`
		SendBytes  int64               `json:"send_bytes"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append(args, "--cluster", "two-h100-nodes", "--json")...)), &timed); err != nil {
		t.Fatal(err)
	}
	if timed.Cluster == nil || timed.Cluster.Name != "two-h100-nodes" || timed.BoxingTime == nil || !near(timed.BoxingTime.TimeS, rs+ag) || timed.SendBytes == 0 {
		t.Errorf("sbp boxing --cluster --json: %+v", timed)
	}
	plain := runCLI(t, append(args, "--json")...)
	if strings.Contains(plain, `"cluster"`) || strings.Contains(plain, `"boxing_time"`) {
		t.Errorf("sbp boxing --json without a cluster:\n%s", plain)
	}
}

// TestSbpPlanCluster: sbp plan --cluster prints the op's roofline on its
// slowest device and --json adds op_time; an op whose inputs fit no
// signature is boxed to the fastest valid one under cost time, and to
// OneFlow's under cost bytes.
func TestSbpPlanCluster(t *testing.T) {
	args := []string{"sbp", "plan", "--op", "matmul", "--shape", "4096,4096", "--b-shape", "4096,4096", "--sbp", "S(0)", "--placement", "8", "--cluster", "h100-node"}
	// each device: a [512 4096] by [4096 4096] matmul, 2·512·4096·4096 FLOPs at 67 TFLOP/s
	want := "\ntime on h100-node: 256 µs on rank 0, the slowest device: 17.2 GFLOP take 256 µs at 67 TFLOP/s, 80.0 MiB read and written 25.0 µs at 3.35 TB/s: compute-bound\n"
	if out := runCLI(t, args...); !strings.HasSuffix(out, want) {
		t.Errorf("sbp plan --cluster ends\n%s\nwant\n%s", out[max(0, len(out)-300):], want)
	}
	var timed struct {
		Cluster *cluster.Cluster `json:"cluster"`
		OpTime  *cluster.OpTime  `json:"op_time"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append(args, "--json")...)), &timed); err != nil {
		t.Fatal(err)
	}
	if timed.Cluster == nil || timed.OpTime == nil || timed.OpTime.FLOPs != 2*512*4096*4096 || timed.OpTime.Bound != cluster.ComputeBound || len(timed.OpTime.Ranks) != 8 {
		t.Errorf("sbp plan --cluster --json: %+v", timed)
	}
	boxed := []string{"sbp", "plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "6,8", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "2", "--cluster", "h100-node"}
	if out := runCLI(t, boxed...); !strings.Contains(out, "boxed to the valid signature whose boxing and op take the least time on h100-node") || !strings.Contains(out, "time on h100-node: compute") {
		t.Errorf("sbp plan --cluster of an op that fits no signature:\n%s", out)
	}
	if out := runCLI(t, append(boxed, "--cost", "bytes")...); !strings.Contains(out, "whose boxing sends the fewest bytes, as OneFlow does") {
		t.Errorf("sbp plan --cluster --cost bytes of an op that fits no signature:\n%s", out)
	}
}

// TestDrawProgramCluster: draw program --cluster (a preset, a file, or
// a cluster's JSON as a scene's command line spells it) draws the plan
// sbp program --cluster prints.
func TestDrawProgramCluster(t *testing.T) {
	dir := t.TempDir()
	c, _ := cluster.Preset("two-h100-nodes")
	c.Name = "mine"
	file, _ := c.File()
	path := filepath.Join(dir, "mine.json")
	os.WriteFile(path, file, 0o644)
	for _, name := range []string{"two-h100-nodes", path, string(file)} {
		out := filepath.Join(dir, "p.json")
		runCLI(t, "draw", "program", "--src", meshSrc, "--cluster", name, "-o", out)
		drawn, _ := os.ReadFile(out)
		var a, b any
		json.Unmarshal(drawn, &a)
		json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--src", meshSrc, "--cluster", name, "--json")), &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) || !bytes.Contains(ja, []byte(`"overlap_time_s"`)) {
			t.Errorf("draw program --cluster %s's JSON\n%s\nis not sbp program --json's\n%s", name, ja, jb)
		}
	}
}

// TestClusterFlagsRefuse: every bad --cluster or --cost is one line on
// stderr, nothing on stdout: exit 2 for a bad command line, 1 for a
// cluster that does not read or does not fit the mesh.
func TestClusterFlagsRefuse(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "two.json")
	os.WriteFile(bad, []byte(`{"name": "two", "links": [{"alpha_s": 1e-5, "beta_bytes_per_s": 5e10}, {"alpha_s": 1e-5, "beta_bytes_per_s": 0}], "device": {"flops_per_s": 1, "mem_bytes_per_s": 1, "mem_capacity_bytes": 1}}`), 0o644)
	program := []string{"sbp", "program", "--src", meshSrc}
	op := []string{"sbp", "plan", "--op", "add", "--shape", "4,4", "--b-shape", "4,4", "--sbp", "(S(0), B)", "--b-sbp", "(S(0), B)", "--placement", "[[0,1],[2,3]]"}
	boxing := []string{"sbp", "boxing", "--shape", "4,4", "--from", "(S(0), B)", "--to", "(B, B)", "--placement", "[[0,1],[2,3]]"}
	draw := []string{"draw", "program", "--src", meshSrc, "-o", filepath.Join(dir, "p.svg")}
	with := func(cmd []string, more ...string) []string { return append(append([]string{}, cmd...), more...) }
	const noLink = "cluster loopback: links: 1 link for cpu:[[0, 1], [2, 3]], a 2-D mesh; give one link per mesh dim"
	refuses(t, []refused{
		{with(program, "--cost", "time"), 2, "stridelab sbp program: --cost time needs --cluster NAME|FILE to time the steps on (the presets are h100-node, two-h100-nodes, tpu-v5e, loopback, h100-nodes:N (N nodes of 8 H100s), tpu-v5e:RxC (an R×C TPU v5e slice))"},
		{with(program, "--cost", "speed"), 2, `stridelab sbp program: --cost "speed": choose bytes or time`},
		{with(program, "--cluster", "h200"), 1, "stridelab sbp program: cluster h200: no preset of that name and no such file; the presets are h100-node, two-h100-nodes, tpu-v5e, loopback, h100-nodes:N (N nodes of 8 H100s) and tpu-v5e:RxC (an R×C TPU v5e slice)"},
		{with(program, "--cluster", bad), 1, "stridelab sbp program: cluster " + bad + ": links[1].beta_bytes_per_s: must be a positive number of bytes per second, got 0"},
		{with(program, "--cluster", "loopback"), 1, "stridelab sbp program: " + noLink},
		{with(op, "--cost", "time"), 2, "stridelab sbp plan: --cost time needs --cluster"},
		{with(op, "--cluster", "loopback"), 1, "stridelab sbp plan: " + noLink},
		{with(boxing, "--cluster", "loopback"), 1, "stridelab sbp boxing: " + noLink},
		{with(boxing, "--cluster", bad), 1, "stridelab sbp boxing: cluster " + bad + ": links[1].beta_bytes_per_s"},
		{with(boxing, "--cost", "time"), 2, "stridelab sbp boxing: flag provided but not defined: -cost"},
		{with(draw, "--cost", "time"), 2, "stridelab draw: --cost time needs --cluster"},
		{with(draw, "--cluster", "loopback"), 1, "stridelab draw: " + noLink},
		{with(draw, "--cluster", bad), 1, "stridelab draw: cluster " + bad + ": links[1].beta_bytes_per_s"},
		{with(program, "--cluster", `{"name": "two", "links": [{"alpha_s": 1e-5}]}`), 1, "stridelab sbp program: cluster: links[0].beta_bytes_per_s: missing"},
	})
}

// TestProgramCapacity: a plan whose peak passes the cluster's device
// memory is refused in one line naming the rank, the step, what it
// holds and the device by the cluster's name; --json prints nothing.
// The same plan fits two-h100-nodes' 80 GB and is planned, though it is
// past this machine's result budget: only a run is held to that.
func TestProgramCapacity(t *testing.T) {
	// x, w and their gradients are 4 GiB each per device at B; 16 GiB at the peak.
	const big = "placement [[0,1],[2,3]]; x = input 32768,32768 (S(0), B); w = input 32768,32768 (B, B); y = matmul x w; s = sum y 1,1; grad s"
	for _, asJSON := range []bool{false, true} {
		args := []string{"sbp", "program", "--src", big, "--cluster", "tpu-v5e"}
		if asJSON {
			args = append(args, "--json")
		}
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		msg := stderr.String()
		want := "stridelab sbp program: program: line 1, column 59: w = input 32768,32768 (B, B): rank 0 holds 16.0 GiB at step 9 (w as (B, B) 4.00 GiB, grad_w.y as (P(sum), B) 4.00 GiB, grad_w as (B, B) 4.00 GiB and 2 more); each tpu-v5e device has 14.9 GiB\n"
		if code != 1 || msg != want || stdout.Len() != 0 {
			t.Errorf("json %v: exit %d, stderr %q, stdout %d bytes; want exit 1 and %q", asJSON, code, msg, stdout.Len(), want)
		}
	}
	if plan := planJSON(t, "--src", big, "--cluster", "two-h100-nodes", "--max-bytes", "1GiB"); plan["time_s"] == nil {
		t.Errorf("on two-h100-nodes: %v", plan["time_s"])
	}
}
