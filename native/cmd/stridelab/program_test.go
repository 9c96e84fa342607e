package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/bench"
	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/internal/pythontest"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// contractSrc has a forward boxing (w is S(0), the matmul wants it
// whole), an explicit box, a broadcast add, a scalar and a backward.
const contractSrc = `placement 4
x = input 8,6 S(0)
w = input 6,4 S(0) from w.npy
y = matmul x w
b = input 4 B
z = add y b
t = box y B
s = sum z ()
grad s`

// runCLI runs the CLI in-process; it fails the test unless it exits 0.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("stridelab %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// programDir writes contractSrc as p.txt and w.npy beside it.
func programDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.txt"), []byte(contractSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _ := tensor.FromSlice(tensor.Shape{6, 4}, []float32{
		0.5, -1, 2, 0.25, 1, 3, -2, 0.5, -0.5, 1.5, 1, 2, 4, -3, 0.75, 1, 2, 2, -1, -1, 0.125, 1, 3, -0.5})
	writeNpy(t, dir, "w.npy", w)
	return dir
}

// TestProgramJSONContract: every field of the example, with its
// type, for a program with a forward boxing and a grad; the boxing steps'
// bytes sum to total_send_bytes.
func TestProgramJSONContract(t *testing.T) {
	dir := programDir(t)
	var plan map[string]any
	if err := json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--file", filepath.Join(dir, "p.txt"), "--json")), &plan); err != nil {
		t.Fatal(err)
	}
	isString := func(v any) bool { _, ok := v.(string); return ok }
	isNumber := func(v any) bool { _, ok := v.(float64); return ok }
	isList := func(v any, elem func(any) bool) bool {
		l, ok := v.([]any)
		for _, e := range l {
			ok = ok && elem(e)
		}
		return ok
	}
	isShape := func(v any) bool { return isList(v, isNumber) }
	isStrings := func(v any) bool { return isList(v, isString) }
	check := func(where string, obj map[string]any, fields map[string]func(any) bool) {
		t.Helper()
		for name, ok := range fields {
			v, present := obj[name]
			if !present {
				t.Errorf("%s: no %q in %v", where, name, obj)
			} else if !ok(v) {
				t.Errorf("%s: %q is %#v, of the wrong type", where, name, v)
			}
		}
	}
	isHeld := func(v any) bool { l, ok := v.([]any); return ok && len(l) == 4 && isList(v, isNumber) } // one per device
	check("plan", plan, map[string]func(any) bool{
		"placement": isString, "strategy": isString, "total_send_bytes": isNumber, "greedy_send_bytes": isNumber,
		"exact_send_bytes": func(v any) bool { return v == nil || isNumber(v) }, "steps": func(v any) bool { _, ok := v.([]any); return ok },
		"peak_held_bytes": isHeld, "peak_step": isNumber,
	})
	if plan["placement"] != "cpu:[0, 1, 2, 3]" || plan["strategy"] != "greedy" {
		t.Errorf("placement %v, strategy %v", plan["placement"], plan["strategy"])
	}
	kinds := map[string]map[string]func(any) bool{
		"input": {"name": isString, "shape": isShape, "sbp": isString, "pass": isString},
		"boxing": {"tensor": isString, "shape": isShape, "for": isString, "pass": isString, "from": isString, "to": isString,
			"collectives": isStrings, "send_bytes": isNumber, "recv_bytes": isNumber,
			"ranks": func(v any) bool {
				return isList(v, func(r any) bool {
					m, ok := r.(map[string]any)
					return ok && isNumber(m["rank"]) && isNumber(m["send_bytes"]) && isNumber(m["recv_bytes"])
				})
			}},
		"op": {"name": isString, "op": isString, "pass": isString, "inputs": isStrings, "in_sbp": isStrings, "out_sbp": isString, "shape": isShape},
	}
	seen := map[string]bool{}
	var sum float64
	peak, most, peakStep := make([]any, 4), -1.0, -1 // held_bytes' largest per device; the largest of all, and where it is first
	for i, v := range plan["steps"].([]any) {
		step, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("step %d is %#v", i, v)
		}
		kind, _ := step["kind"].(string)
		fields, ok := kinds[kind]
		if !ok {
			t.Fatalf("step %d: kind %q", i, kind)
		}
		check(fmt.Sprintf("step %d (%s)", i+1, kind), step, fields)
		if !isHeld(step["held_bytes"]) {
			t.Fatalf("step %d: held_bytes %#v, want a number per device", i+1, step["held_bytes"])
		}
		for d, b := range step["held_bytes"].([]any) {
			if peak[d] == nil || b.(float64) > peak[d].(float64) {
				peak[d] = b
			}
			if b.(float64) > most {
				most, peakStep = b.(float64), i
			}
		}
		pass := step["pass"]
		if pass != "forward" && pass != "backward" {
			t.Errorf("step %d: pass %v", i+1, pass)
		}
		seen[kind+" "+pass.(string)] = true
		if kind == "boxing" {
			sum += step["send_bytes"].(float64)
		}
		if name, _ := step["name"].(string); pass == "backward" && kind == "op" && !strings.HasPrefix(name, "grad_") && !strings.Contains(name, ".") {
			t.Errorf("step %d: a backward result named %q", i+1, name)
		}
	}
	for _, want := range []string{"input forward", "boxing forward", "op forward", "op backward", "boxing backward"} {
		if !seen[want] {
			t.Errorf("no %s step in the plan", want)
		}
	}
	if !slices.Equal(plan["peak_held_bytes"].([]any), peak) || plan["peak_step"] != float64(peakStep) {
		t.Errorf("peak_held_bytes %v at peak_step %v; the steps' held_bytes peak at %v, the largest first at %d", plan["peak_held_bytes"], plan["peak_step"], peak, peakStep)
	}
	if sum != plan["total_send_bytes"].(float64) || sum == 0 {
		t.Errorf("the boxing steps send %v bytes, total_send_bytes is %v", sum, plan["total_send_bytes"])
	}
	if plan["greedy_send_bytes"] != plan["total_send_bytes"] {
		t.Errorf("greedy_send_bytes %v, total %v under greedy", plan["greedy_send_bytes"], plan["total_send_bytes"])
	}
	if e, ok := plan["exact_send_bytes"].(float64); !ok || e > plan["greedy_send_bytes"].(float64) {
		t.Errorf("exact_send_bytes %v, greedy %v", plan["exact_send_bytes"], plan["greedy_send_bytes"])
	}

	// A search past the bound: exact_send_bytes is null, and says why.
	const big = "placement [[0,1],[2,3]]; a = input 8,8 (S(0), B); b = input 8,8 (B, S(1)); c = matmul a b; d = matmul b a; e = matmul c d; f = matmul d c; g = add e f; h = mul a g; k = matmul h b; s = sum k 1,1; grad s"
	var refused map[string]any
	if err := json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--src", big, "--json")), &refused); err != nil {
		t.Fatal(err)
	}
	if v, ok := refused["exact_send_bytes"]; !ok || v != nil || !strings.Contains(fmt.Sprint(refused["exact_refused"]), "entries") {
		t.Errorf("a refused exact search: exact_send_bytes %#v, exact_refused %v", v, refused["exact_refused"])
	}
}

// TestProgramPeakLine: the report prints the most each device holds at
// any step, devices of one figure together, and the step of the largest:
// 10 rows on 3 devices split 4, 3, 3 (the hand count of
// sbp/program's TestHeldUnevenSplit), and on ranks 4-7 the ranks named.
func TestProgramPeakLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"placement 3; x = input 10,4 S(0); w = input 4,2 B; y = matmul x w; s = sum y 1,1; grad s",
			"\npeak held: 224 bytes on rank 0, 192 bytes on ranks 1-2 (the most at step 8)\n"},
		{"placement 4-7; x = input 8,4 S(0); y = add x x", // x and y, 2 rows of 16 bytes each
			"\npeak held: 64 bytes on ranks 4-7 (the most at step 2)\n"},
	} {
		if out := runCLI(t, "sbp", "program", "--src", c.src); !strings.Contains(out, c.want) {
			t.Errorf("%s: the report lacks %q:\n%s", c.src, c.want, out)
		}
	}
}

// TestProgramBoxingBytes: every boxing step of a plan, forward and
// backward, on a 1-D and a 2-D mesh with uneven splits, sends what
// `stridelab sbp boxing` reports for its shape, SBPs and placement.
func TestProgramBoxingBytes(t *testing.T) {
	for _, src := range []string{
		contractSrc[:strings.Index(contractSrc, " from")] + contractSrc[strings.Index(contractSrc, "\ny = "):],
		"placement 3; x = input 7,5 S(1); w = input 5,3 S(0); y = matmul x w; m = max y 1,3; grad m",
		"placement [[0,1],[2,3]]; x = input 6,5 (S(0), S(1)); w = input 5,3 (B, S(0)); y = matmul x w; t = box y (B, B); e = expand t 2,6,3; s = sum e 1,1,1; grad s",
	} {
		var plan planner.Plan
		if err := json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--src", src, "--json")), &plan); err != nil {
			t.Fatal(err)
		}
		boxings := 0
		for _, s := range plan.Steps {
			if s.Kind != planner.StepBoxing {
				continue
			}
			boxings++
			var want struct {
				SendBytes int64 `json:"send_bytes"`
				Ranks     []struct {
					Rank      int   `json:"rank"`
					SendBytes int64 `json:"send_bytes"`
					RecvBytes int64 `json:"recv_bytes"`
				} `json:"ranks"`
			}
			out := runCLI(t, "sbp", "boxing", "--shape", s.Shape.Spell(), "--from", s.From.String(), "--to", s.To.String(), "--placement", plan.Placement, "--json")
			if err := json.Unmarshal([]byte(out), &want); err != nil {
				t.Fatal(err)
			}
			var recv int64
			got := make([]string, len(s.Ranks))
			for i, r := range s.Ranks {
				got[i] = fmt.Sprint(r.Rank, r.SendBytes, r.RecvBytes)
			}
			wantRanks := make([]string, len(want.Ranks))
			for i, r := range want.Ranks {
				wantRanks[i] = fmt.Sprint(r.Rank, r.SendBytes, r.RecvBytes)
				recv += r.RecvBytes
			}
			if s.SendBytes != want.SendBytes || s.RecvBytes != recv || !slices.Equal(got, wantRanks) {
				t.Errorf("%s: boxing %s %v %s -> %s: sends %d, receives %d, ranks %v; sbp boxing says %d, %d, %v",
					src, s.Tensor, s.Shape, s.From, s.To, s.SendBytes, s.RecvBytes, got, want.SendBytes, recv, wantRanks)
			}
		}
		if boxings == 0 {
			t.Errorf("%s: no boxing to compare", src)
		}
	}
}

// readOut reads DIR/NAME.npy for every name.
func readOut(t *testing.T, dir string, names []string) map[string]tensor.Tensor {
	t.Helper()
	out := map[string]tensor.Tensor{}
	for _, n := range names {
		v, _, err := npyfile.ReadFile(filepath.Join(dir, n+".npy"), npyfile.Options{Float64: true})
		if err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

// closeTo compares two tensors' values within float32 sums' rounding.
func closeTo(t *testing.T, what string, got, want tensor.Tensor) {
	t.Helper()
	a, err := tensor.AgreeNormwise(got, want, 1e-4)
	switch {
	case err != nil:
		t.Errorf("%s: %v", what, err)
	case !a.Agrees:
		t.Errorf("%s: %s", what, a.Words("the simulated run's"))
	}
}

// contractNames are every tensor and gradient --out writes for contractSrc.
var contractNames = []string{"x", "w", "y", "b", "z", "t", "s", "grad_x", "grad_w", "grad_y", "grad_b", "grad_z", "grad_s"}

// TestProgramOut: --out writes every tensor and gradient, equal to
// plan.Reference's (one CPU device), on the CPU and, where an adapter
// exists, the GPU.
func TestProgramOut(t *testing.T) {
	dir := programDir(t)
	prog, err := program.Parse(contractSrc)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.NewPlan(prog, planner.Greedy)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := npyfile.ReadFile(filepath.Join(dir, "w.npy"), npyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := plan.Reference(planner.Values{"w": w})
	if err != nil {
		t.Fatal(err)
	}
	backends := []string{"cpu"}
	if gpuAvailable(t) {
		backends = append(backends, "gpu")
	}
	for _, be := range backends {
		for _, strategy := range []string{"greedy", "exact"} {
			out := filepath.Join(dir, "out-"+be+"-"+strategy)
			report := runCLI(t, "sbp", "program", "--file", filepath.Join(dir, "p.txt"), "--out", out, "--backend", be, "--strategy", strategy)
			if !strings.Contains(report, "every tensor and gradient") || !strings.Contains(report, fmt.Sprintf("wrote %d files", len(contractNames))) {
				t.Errorf("%s %s: the report lacks the check or the files:\n%s", be, strategy, report)
			}
			entries, _ := os.ReadDir(out)
			if len(entries) != len(contractNames) {
				t.Errorf("%s %s: %d files in %s, want %d (%v)", be, strategy, len(entries), out, len(contractNames), entries)
			}
			got := readOut(t, out, contractNames)
			for _, n := range contractNames {
				closeTo(t, be+" "+strategy+" "+n, got[n], want[n])
			}
		}
	}
}

// TestProgramAgainstNumPy: the forward values and the gradients --out
// writes equal NumPy's, computed by hand for contractSrc.
func TestProgramAgainstNumPy(t *testing.T) {
	py := requireNumPy(t)
	dir := programDir(t)
	out := filepath.Join(dir, "out")
	runCLI(t, "sbp", "program", "--file", filepath.Join(dir, "p.txt"), "--out", out)
	script := `import numpy as np, os, sys
os.chdir(sys.argv[1])
x = np.arange(48, dtype=np.float32).reshape(8, 6)
w = np.load("w.npy")
b = np.arange(4, dtype=np.float32)
y = x @ w
z = y + b
want = {"x": x, "w": w, "y": y, "b": b, "z": z, "t": y, "s": np.array(z.sum(), np.float32),
        "grad_s": np.ones((), np.float32), "grad_z": np.ones_like(z), "grad_y": np.ones_like(y),
        "grad_b": np.ones_like(z).sum(axis=0), "grad_x": np.ones_like(y) @ w.T, "grad_w": x.T @ np.ones_like(y)}
os.makedirs("numpy", exist_ok=True)
for name, v in want.items():
    np.save(os.path.join("numpy", name + ".npy"), np.asarray(v, np.float32))
`
	if b, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, b)
	}
	got, want := readOut(t, out, contractNames), readOut(t, filepath.Join(dir, "numpy"), contractNames)
	for _, n := range contractNames {
		closeTo(t, n, got[n], want[n])
	}
}

// requireNumPy returns the interpreter that imports NumPy
// (bench.NumPyPython), or skips the test without one, unless
// STRIDELAB_REQUIRE_NUMPY makes that a failure.
func requireNumPy(t *testing.T) string {
	t.Helper()
	return pythontest.NumPy(t, bench.NumPyPython)
}

// emitShim runs an emitted program on one process, without a cluster:
// the engine's distributed layer is replaced by identities (every layout
// holds the full value), so what is left is the program's own logic — its
// ops spelled in the engine's Python, its boxings, the engine's autograd,
// the results saved — on real torch (Debian's python3-torch has no
// DTensor and there is no OneFlow to import, so both are stood in for).
const emitShim = `import sys, types, torch

class Layout:
    def __init__(self, *args, **kwargs):
        pass

def nesting(ranks):
    return 1 + nesting(ranks[0]) if isinstance(ranks, list) else 0

class DeviceMesh:
    def __init__(self, device, ranks):
        self.ndim = nesting(ranks)

def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m

def relayout(self, *args, **kwargs):
    return self.clone()  # a boxing keeps the values, and is differentiable

engine, path = sys.argv[1], sys.argv[2]
if engine == "pytorch":
    import torch.distributed as dist
    dist.init_process_group = lambda *a, **k: None
    dist.get_rank = lambda: 0
    torch.Tensor.redistribute = relayout
    torch.Tensor.full_tensor = lambda self: self
    module("torch.distributed.device_mesh", DeviceMesh=DeviceMesh)
    module("torch.distributed.tensor", Partial=Layout, Replicate=Layout, Shard=Layout, distribute_tensor=lambda t, mesh, placements: t)
else:
    torch.Tensor.to_global = relayout
    torch.Tensor.to_local = lambda self: self
    module("oneflow", tensor=torch.tensor, placement=Layout, matmul=torch.matmul, maximum=torch.maximum, minimum=torch.minimum, eq=torch.eq,
           exp=torch.exp, log=torch.log, sqrt=torch.sqrt, rsqrt=torch.rsqrt, tanh=torch.tanh, relu=torch.relu, softmax=torch.softmax,
           sbp=types.SimpleNamespace(split=Layout, broadcast=Layout(), partial_sum=Layout()), env=types.SimpleNamespace(get_rank=lambda: 0))
exec(compile(open(path).read(), path, "exec"), {"__name__": "__main__"})
`

// TestProgramEmit: the emitted programs spell the plan for their
// engine, and compute, on one process through emitShim (with the
// interpreter torch.FindPython picks, the process forked by runPython),
// every tensor and gradient that
// --out writes: the ops' spellings, the explicit boxings and the
// engine's own autograd agree with stridelab's plan and backward.
// Without torch the spellings are checked and the test is skipped,
// saying why; with STRIDELAB_REQUIRE_TORCH=1 (make test) it fails.
func TestProgramEmit(t *testing.T) {
	python, noTorch := torch.FindPython(context.Background(), "")
	if noTorch != nil && os.Getenv("STRIDELAB_REQUIRE_TORCH") == "1" {
		t.Fatalf("STRIDELAB_REQUIRE_TORCH=1: %v", noTorch)
	}
	dir := programDir(t)
	c, _ := tensor.FromSlice(tensor.Shape{4}, []float32{0.5, 2, 4, 1.25})
	writeNpy(t, dir, "c.npy", c)
	c6, _ := tensor.FromSlice(tensor.Shape{6, 4}, []float32{0.5, 2, 4, 1.25, -1, 3, 0.75, -2.5, 1.5, 2.25, -0.5, 1, 3.5, -3, 0.25, 2, 1, 1, -1.75, 0.5, 2.5, -1.25, 4, 0.125})
	writeNpy(t, dir, "c6.npy", c6)
	shim := filepath.Join(dir, "shim.py")
	os.WriteFile(shim, []byte(emitShim), 0o644)
	for i, tc := range []struct {
		src     string
		engines []string
		want    []string // in every engine's program
		flags   []string // more flags for sbp program
	}{
		{contractSrc, []string{"oneflow", "pytorch"}, []string{"y = ", ".retain_grad()", ".sum().backward()", `values["grad_w"]`, "# line 7: t = box y B"}, nil},
		{"placement 3\nx = input 6,4 S(0)\nc = input 4 B from c.npy\nq = div x c\nm = mul q x\nh = max q m\nr = repeat h 2,1\nn = max r 1,4\nk = min r 12,1\npm = input 12,1 P(min)\nkk = min k pm\ng = sub n kk\ne = expand g 3,12,4\ns = sum e 1,1,1\ngrad s",
			[]string{"pytorch"}, []string{`Partial("min")`, "repeat(2, 1)", "expand(3, 12, 4)", "torch.maximum"},
			nil}, // pm is P(min): OneFlow's lists, greedy's, make no P(min) of their own
		{"placement [[0,1],[2,3]]\nx = input 6,5 (S(0), S(1))\nw = input 5,3 (B, S(0))\ny = matmul x w\nt = box y (B, B)\ne = expand t 2,6,3\ns = sum e 1,1,1\ngrad s",
			[]string{"oneflow", "pytorch"}, []string{"[[0, 1], [2, 3]]"}, nil},
		{"placement 2\nnp = input 4,3 S(0)\nlambda = input 3 B\nu = input 2 B\nprint = add np lambda\ns = sum print 1,1\ngrad s",
			[]string{"oneflow", "pytorch"}, []string{"np_ = global_tensor(", "lambda_ = global_tensor(", "print_ = np_ + lambda_", `values["grad_u"]`}, nil},
		{"placement 2; x = input 4,3 S(1); y = sub x x", []string{"oneflow", "pytorch"}, []string{`values["y"] = full(y)`}, nil},
		// the unary ops and mean, through the engines' autograd
		{"placement 3\nx = input 6,4 S(0) from c6.npy\nm = mean x 1,4\nc = sub x m\nr = relu c\ne = exp r\nl = log e\nq = sqrt e\nk = rsqrt q\nt = tanh k\nn = neg t\na = add l n\nu = mean a ()\ngrad u",
			[]string{"oneflow", "pytorch"}, []string{"x.mean(dim=(0,), keepdim=True).reshape(1, 4)", ".relu(c)", ".exp(r)", ".log(e)", ".sqrt(e)", ".rsqrt(q)", ".tanh(k)", "n = -t", "a.mean(dim=(0, 1), keepdim=True).reshape(())"}, nil},
		// softmax along either end, through the engines' autograd
		{"placement 3\nx = input 6,4 S(0) from c6.npy\ny = softmax x -1\nw = input 6,4 S(1)\nz = mul y w\np = softmax z 0\nq = mul p p\nu = sum q 1,1\ngrad u",
			[]string{"oneflow", "pytorch"}, []string{".softmax(x, dim=1)", ".softmax(z_S_1, dim=0)"}, nil},
		// the layer ops: reshape to heads, permute, transpose, batched
		// matmuls, a scale and a softmax, through the engines' autograd
		{"placement 2\nx = input 6,4 S(0) from c6.npy\nwt = input 6,4 S(1) from c6.npy\nw = transpose wt\nh = matmul x w\nv = reshape h 6,2,3\nq = permute v 1,0,2\nk = transpose q\na = matmul q k\nb = scale a 0.25\np = softmax b -1\no = matmul p q\nu = sum o 1,1,1\ngrad u",
			[]string{"oneflow", "pytorch"}, []string{".reshape(", ".permute((1, 0, 2))", ".transpose(-2, -1)", " * 0.25", ".softmax("}, nil},
	} {
		file := filepath.Join(dir, fmt.Sprintf("p%d.txt", i))
		os.WriteFile(file, []byte(tc.src), 0o644)
		want := filepath.Join(dir, fmt.Sprintf("want%d", i))
		runCLI(t, append([]string{"sbp", "program", "--file", file, "--out", want}, tc.flags...)...)
		wantFiles, _ := os.ReadDir(want)
		for _, engine := range tc.engines {
			got := filepath.Join(dir, fmt.Sprintf("got%d-%s", i, engine))
			prog := runCLI(t, append([]string{"sbp", "program", "--file", file, "--emit", engine, "--out", got}, tc.flags...)...)
			for _, w := range tc.want {
				if !strings.Contains(prog, w) {
					t.Errorf("program %d, %s: lacks %q:\n%s", i, engine, w, prog)
				}
			}
			py := filepath.Join(dir, fmt.Sprintf("p%d_%s.py", i, engine))
			os.WriteFile(py, []byte(prog), 0o644)
			if noTorch != nil {
				continue
			}
			if b, err := runPython(t, python, shim, engine, py); err != nil {
				t.Errorf("program %d, %s: running it: %v\n%s\n%s", i, engine, err, b, prog)
				continue
			}
			gotFiles, _ := os.ReadDir(got)
			if len(gotFiles) != len(wantFiles) {
				t.Errorf("program %d, %s: it wrote %v, --out wrote %v", i, engine, gotFiles, wantFiles)
			}
			for _, f := range wantFiles {
				name := strings.TrimSuffix(f.Name(), ".npy")
				closeTo(t, fmt.Sprintf("program %d, %s: %s", i, engine, name), readOut(t, got, []string{name})[name], readOut(t, want, []string{name})[name])
			}
		}
	}
	if noTorch != nil {
		t.Skipf("the emitted programs' spellings were checked, but the programs were not run: %v", noTorch)
	}
}

// TestProgramUnprovenExact: a program whose exact search passes its
// bounds (x read by six products on a 2×3 mesh, and by their backward)
// gets the best plan the LP bound's search found, and the report says in
// one line that it is not proven, by how much at most, and why.
func TestProgramUnprovenExact(t *testing.T) {
	const big = "placement [[0,1,2],[3,4,5]]; x = input 12,12,12 (S(0), B); w1 = input 12,12,12 (B, S(1)); y1 = mul x w1; w2 = input 12,12,12 (B, S(2)); y2 = mul x w2; w3 = input 12,12,12 (B, S(0)); y3 = mul x w3; w4 = input 12,12,12 (B, S(1)); y4 = mul x w4; w5 = input 12,12,12 (B, S(2)); y5 = mul x w5; w6 = input 12,12,12 (B, S(0)); y6 = mul x w6; z1 = add y1 y2; z2 = add z1 y3; z3 = add z2 y4; z4 = add z3 y5; z5 = add z4 y6; s = sum z5 1,1,1; grad s"
	out := runCLI(t, "sbp", "program", "--src", big, "--strategy", "exact")
	if !strings.Contains(out, "\nexact plan not proven the cheapest: the optimum is at most ") || !strings.Contains(out, "the table of x (the ops that make and read it: 12)") {
		t.Errorf("the report says nothing of the proof:\n%s", out)
	}
}

// TestProgramBadInput: every bad command line of sbp program exits
// non-zero with one line on stderr naming the problem, and writes no
// --out file.
func TestProgramBadInput(t *testing.T) {
	dir := programDir(t)
	p := filepath.Join(dir, "p.txt")
	wrongShape := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrongShape, []byte("placement 2\nx = input 4,6 B\nw = input 4,6 B from w.npy\n"), 0o644)
	// x read by six products and their backward: 12 ops in its table, 25
	// layouts of a 3-D tensor each on the 2×3 mesh
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--file", p, "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{}, 2, "--file or --src is required"},
		{[]string{"--file", p, "--src", "placement 2"}, 2, "--file or --src, not both"},
		{[]string{"--file", filepath.Join(dir, "missing.txt")}, 1, "missing.txt: no such file"},
		{[]string{"--src", "placement 4; x = input 8,4 S(0); w = input 5,3 B; y = matmul x w"}, 1,
			"program: line 1, column 51: y = matmul x w: matmul [8 4] x [5 3]: a has 4 columns but b has 5 rows"},
		{[]string{"--src", "placement 4\nx = input 8,4 S(0)\ny = frob x"}, 1, `program: line 3, column 1: y = frob x: unknown op "frob"`},
		{[]string{"--file", wrongShape}, 1, "program: line 3, column 1: w = input 4,6 B from w.npy: " + filepath.Join(dir, "w.npy") + " holds [6 4] but the input is [4 6]"},
		{[]string{"--src", "placement 2; w = input 6,4 B from nowhere.npy"}, 1, "w = input 6,4 B from nowhere.npy: npyfile: open nowhere.npy: no such file"},
		{[]string{"--file", p, "--strategy", "bad"}, 2, `--strategy "bad": choose greedy or exact`},
		{[]string{"--file", p, "--emit", "jax"}, 2, `--emit "jax": choose oneflow or pytorch`},
		{[]string{"--src", "placement 4; x = input 8,4 S(0); m = max x 1,4; grad m", "--emit", "oneflow", "--strategy", "exact"}, 1,
			"program: line 1, column 34: m = max x 1,4: emit oneflow: OneFlow has only partial_sum"},
		{[]string{"--file", p, "--backend", "tpu"}, 2, `--backend "tpu": choose cpu`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"sbp", "program", "--out", out}, c.args...), &stdout, &stderr)
		msg := stderr.String()
		if code != c.code || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "stridelab sbp program: ") {
			t.Errorf("sbp program %q: exit %d, stderr %q; want exit %d and one line containing %q", c.args, code, msg, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("sbp program %q: it made %s", c.args, out)
			os.RemoveAll(out)
		}
	}
	// A run past the result budget: refused before anything is
	// allocated, in one line naming the bytes and the limit.
	for _, limit := range []string{"2KiB", "100B"} { // the run; the from-file itself
		var stdout, stderr bytes.Buffer
		code := run([]string{"sbp", "program", "--file", filepath.Join(dir, "p.txt"), "--out", out, "--max-bytes", limit}, &stdout, &stderr)
		if msg := strings.TrimSuffix(stderr.String(), "\n"); code != 1 || strings.Contains(msg, "\n") || !refusal.MatchString(msg) {
			t.Errorf("--max-bytes %s: exit %d, stderr %q, want one line naming the bytes and the limit", limit, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--max-bytes %s: it made %s", limit, out)
			os.RemoveAll(out)
		}
	}
}

// TestSbpPlanBoxes: sbp plan shows the boxing an op whose inputs fit no
// signature needs, and the plan after it, as a one-op program does;
// --strict refuses with the valid signatures.
func TestSbpPlanBoxes(t *testing.T) {
	args := []string{"sbp", "plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "6,8", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "2"}
	text := runCLI(t, args...)
	for _, want := range []string{"no signature takes S(0) x S(0)", "--strict refuses", "box a for y", "S(0) -> S(1)", "all-to-all", "y = matmul a b",
		"in S(1) x S(0) -> out P(sum)", "rank  coord  in shape"} {
		if !strings.Contains(text, want) {
			t.Errorf("sbp plan of an op that fits no signature lacks %q:\n%s", want, text)
		}
	}
	var plan struct {
		InSbp          []string       `json:"in_sbp"`
		OutSbp         string         `json:"out_sbp"`
		Ranks          []any          `json:"ranks"`
		Boxing         []planner.Step `json:"boxing"`
		TotalSendBytes int64          `json:"total_send_bytes"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append(args, "--json")...)), &plan); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.InSbp, []string{"S(1)", "S(0)"}) || plan.OutSbp != "P(sum)" || len(plan.Ranks) != 2 || len(plan.Boxing) != 1 ||
		plan.Boxing[0].Tensor != "a" || plan.Boxing[0].SendBytes != plan.TotalSendBytes || plan.TotalSendBytes == 0 {
		t.Errorf("sbp plan --json: %+v", plan)
	}
	// The same boxing as a one-op program plans.
	var prog planner.Plan
	json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--src", "placement 2; a = input 4,6 S(0); b = input 6,8 S(0); y = matmul a b", "--json")), &prog)
	if prog.TotalSendBytes != plan.TotalSendBytes || fmt.Sprint(prog.Steps[2].From) != fmt.Sprint(plan.Boxing[0].From) || fmt.Sprint(prog.Steps[2].To) != fmt.Sprint(plan.Boxing[0].To) {
		t.Errorf("sbp plan boxes %+v, the one-op program %+v", plan.Boxing, prog.Steps)
	}
	emitted := runCLI(t, append(args, "--emit", "pytorch")...)
	if !strings.Contains(emitted, "a_S_1 = a.redistribute(mesh, [Shard(1)])") || !strings.Contains(emitted, "y = torch.matmul(a_S_1, b)") {
		t.Errorf("sbp plan --emit pytorch of a boxed op:\n%s", emitted)
	}
	// An op that fits keeps its plan, as before.
	if out := runCLI(t, "sbp", "plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "6,8", "--sbp", "S(0)", "--placement", "2"); strings.Contains(out, "boxed") || !strings.HasPrefix(out, "matmul [4 6] x [6 8] on") {
		t.Errorf("sbp plan of an op that fits:\n%s", out)
	}
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--strict"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "the valid ones are S(0) x B -> S(0)") || stdout.Len() != 0 {
		t.Errorf("sbp plan --strict: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestDrawProgramFile: draw program --file draws what --src draws, and
// its JSON is the plan sbp program --json prints.
func TestDrawProgramFile(t *testing.T) {
	dir := t.TempDir()
	src := "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"
	file := filepath.Join(dir, "p.txt")
	os.WriteFile(file, []byte(strings.ReplaceAll(src, "; ", "\n")), 0o644)
	runCLI(t, "draw", "program", "--file", file, "-o", filepath.Join(dir, "f.svg"))
	runCLI(t, "draw", "program", "--src", strings.ReplaceAll(src, "; ", "\n"), "-o", filepath.Join(dir, "s.svg"))
	f, _ := os.ReadFile(filepath.Join(dir, "f.svg"))
	s, _ := os.ReadFile(filepath.Join(dir, "s.svg"))
	if len(f) == 0 || !bytes.Equal(f, s) {
		t.Errorf("draw program --file and --src differ (%d and %d bytes)", len(f), len(s))
	}
	runCLI(t, "draw", "program", "--file", file, "-o", filepath.Join(dir, "p.json"))
	drawn, _ := os.ReadFile(filepath.Join(dir, "p.json"))
	var a, b any
	json.Unmarshal(drawn, &a)
	json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--file", file, "--json")), &b)
	if x, y := fmt.Sprint(a), fmt.Sprint(b); x != y || a == nil {
		t.Errorf("draw program's JSON\n%s\nis not sbp program --json's\n%s", x, y)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"draw", "program", "--file", file, "--src", src, "-o", filepath.Join(dir, "x.svg")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "not both") {
		t.Errorf("draw program --file --src: exit %d, %q", code, stderr.String())
	}
}
