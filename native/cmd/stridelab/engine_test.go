package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/internal/pythontest"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// needTorch skips the test, saying why, when no interpreter imports
// torch; with STRIDELAB_REQUIRE_TORCH=1 it fails instead.
func needTorch(t *testing.T) string {
	t.Helper()
	return pythontest.Torch(t, torch.FindPython)
}

// runFails runs the CLI in-process and returns its exit status and
// stderr; it fails the test when the command succeeds.
func runFails(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code == 0 {
		t.Fatalf("stridelab %s: exit 0, want a failure; stdout: %s", strings.Join(args, " "), stdout.String())
	}
	return code, stderr.String()
}

// TestEngineTorchCLI runs sbp run, sbp boxing and sbp program with
// --engine torch on small cases — 1-D over 3 devices with uneven
// splits, a 2×2 mesh, the data-parallel program with its gradients —
// and checks that the --out files equal --engine sim's, byte for byte
// (the values are whole numbers), and that the table names every rank
// with its pid and the bytes it sent and received beside the plan's; a
// run past --timeout is one line and writes nothing.
func TestEngineTorchCLI(t *testing.T) {
	needTorch(t)
	dir := t.TempDir()
	aPath, bPath, xPath := engineInputs(t, dir)
	cases := []struct {
		name   string
		ranks  int
		args   []string
		outDir bool // --out is a folder (sbp program)
	}{
		// b is S(0) over 3 devices (2, 2, 1 rows): boxed to B by an uneven all-gather.
		{"run matmul 3 devices uneven", 3, []string{"sbp", "run", "--op", "matmul", "--in", aPath, "--sbp", "S(0)", "--b", bPath, "--b-sbp", "S(0)", "--placement", "3"}, false},
		{"boxing 2x2 mesh", 4, []string{"sbp", "boxing", "--in", xPath, "--from", "(S(0), S(1))", "--to", "(S(1), B)", "--placement", "[[0,1],[2,3]]"}, false},
		{"program data parallel with grad", 4, []string{"sbp", "program", "--src", "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"}, true},
		// a batched matmul whose batch dims broadcast, on a 2×2 mesh
		{"program batched matmul 2x2 mesh", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; a = input 3,1,4,5 (S(0), B); c = input 2,5,6 (B, S(0)); y = matmul a c; s = sum y 1,1,1,1; grad s"}, true},
	}
	t.Run("timeout", func(t *testing.T) {
		out := filepath.Join(dir, "timeout")
		code, msg := runFails(t, "sbp", "program", "--src", "placement 2; x = input 4 S(0); y = box x B", "--engine", "torch", "--timeout", "50ms", "--out", out)
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "the run passed its timeout") {
			t.Errorf("--timeout 50ms: exit %d, %q", code, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a timed-out run made %s", out)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := func(engine string) string {
				p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+"."+engine)
				if !tc.outDir {
					p += ".npy"
				}
				return p
			}
			runCLI(t, append(tc.args, "--out", out("sim"))...)
			table := runCLI(t, append(tc.args, "--engine", "torch", "--out", out("torch"))...)
			files := []string{""}
			if tc.outDir {
				entries, err := os.ReadDir(out("sim"))
				if err != nil || len(entries) == 0 {
					t.Fatalf("sim wrote %v to %s: %v", entries, out("sim"), err)
				}
				files = files[:0]
				for _, e := range entries {
					files = append(files, e.Name())
				}
			}
			for _, f := range files {
				sameBytes(t, filepath.Join(out("sim"), f), filepath.Join(out("torch"), f))
			}
			// Every rank has rows with its pid (not this process's), and a
			// boxing row with the bytes beside the plan's.
			pids, bytesRow := map[int]string{}, map[int]bool{}
			for _, line := range strings.Split(table, "\n") {
				f := strings.Fields(line)
				if len(f) < 3 {
					continue
				}
				rank, err1 := strconv.Atoi(f[0])
				pid, err2 := strconv.Atoi(f[1])
				if err1 != nil || err2 != nil || pid <= 0 {
					continue
				}
				if pid == os.Getpid() {
					t.Errorf("rank %d ran in this process: %s", rank, line)
				}
				pids[rank] = f[1]
				if strings.Contains(line, " B = plan") {
					bytesRow[rank] = true
				}
			}
			for r := range tc.ranks {
				if pids[r] == "" || !bytesRow[r] {
					t.Errorf("rank %d: pid %q, a row with bytes beside the plan's %v, in:\n%s", r, pids[r], bytesRow[r], table)
				}
			}
		})
	}
}

// TestEngineFlagErrors: a bad --engine, --engine torch with --json or
// --emit, a timeout of 0, a negative --time-runs, --emit torch on sbp plan, and an interpreter
// without torch are one line each, and no --out file is left. None needs
// torch.
func TestEngineFlagErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "y.npy")
	boxing := []string{"sbp", "boxing", "--shape", "5", "--from", "S(0)", "--to", "B", "--placement", "3", "--out", out}
	code, msg := runFails(t, append(boxing, "--engine", "mpi")...)
	if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, `--engine "mpi": choose sim or torch`) {
		t.Errorf("--engine mpi: exit %d, %q", code, msg)
	}
	for _, args := range [][]string{
		{"sbp", "plan", "--op", "expand", "--shape", "4", "--size", "4", "--sbp", "B", "--placement", "2", "--emit", "torch"},
		append(boxing, "--engine", "torch", "--json"),
		append(boxing, "--engine", "torch", "--emit", "pytorch"),
		append(boxing, "--engine", "torch", "--timeout", "0s"),
		append(boxing, "--engine", "torch", "--time-runs", "-1"),
	} {
		if code, msg := runFails(t, args...); code != 2 || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want a usage error in one line", args, code, msg)
		}
	}
	for _, args := range [][]string{
		boxing,
		{"sbp", "run", "--op", "add", "--in", writeNpy(t, dir, "a.npy", mustArange(t, 4)), "--b", filepath.Join(dir, "a.npy"), "--sbp", "S(0)", "--placement", "2", "--out", out},
		{"sbp", "program", "--src", "placement 2; x = input 4 S(0); y = box x B", "--out", filepath.Join(dir, "p")},
	} {
		code, msg := runFails(t, append(args, "--engine", "torch", "--python", "/bin/false")...)
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "apt-get install python3-torch") {
			t.Errorf("%s --python /bin/false: exit %d, %q", args[1], code, msg)
		}
	}
	for _, p := range []string{out, filepath.Join(dir, "p")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written by a failed run", p)
		}
	}
}

func mustArange(t *testing.T, n int) tensor.Tensor {
	t.Helper()
	x, err := tensor.Arange(tensor.Float32, tensor.Shape{n})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestEmitTorch: the file --emit torch prints compiles, and run as
// torchrun would run it (one process per device with MASTER_ADDR,
// MASTER_PORT, RANK and WORLD_SIZE: Debian's torchrun fails under Python
// 3.11) on gloo, it saves values equal, byte for byte, to --engine sim's
// --out files: an op over 3 devices with uneven splits and a boxing of
// its input, a boxing on a 2×2 mesh, and a program with gradients on a
// 2×2 mesh (all-gather, all-reduce, reduce-scatter, local slices), one
// with P(sum) and P(max) inputs, a batched matmul (attention's scores)
// with its gradients, and the unary ops and mean: neg, relu,
// sqrt and mean (and their gradients' step, scale and expand) byte for
// byte, exp, log, tanh and rsqrt, whose torch kernels round their own
// way, within closeTo's 1e-4, as softmax (and its gradient) is; and the
// views (reshape, permute, transpose), forward and backward.
func TestEmitTorch(t *testing.T) {
	py := needTorch(t)
	dir := t.TempDir()
	aPath, bPath, xPath := engineInputs(t, dir)
	cases := []struct {
		name  string
		ranks int
		args  []string
		files []string // the values compared; nil: every file sim wrote to its --out folder
		tol   bool     // compared within closeTo's 1e-4, not byte for byte
		exact []string // files compared byte for byte even when tol
	}{
		{"run", 3, []string{"sbp", "run", "--op", "matmul", "--in", aPath, "--sbp", "S(0)", "--b", bPath, "--b-sbp", "S(0)", "--placement", "3"}, []string{"y.npy"}, false, nil},
		{"boxing", 4, []string{"sbp", "boxing", "--in", xPath, "--from", "(S(0), S(1))", "--to", "(S(1), P)", "--placement", "[[0,1],[2,3]]"}, []string{"y.npy"}, false, nil},
		{"program", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; x = input 9,6 (S(0), B); w = input 6,5 (B, S(1)); y = matmul x w; b = input 5 (B, B); z = add y b; m = max z 1,5; s = sum m 1,1; grad s"}, nil, false, nil},
		// Partial inputs, P(sum) and P(max), planned exactly.
		{"partial", 2, []string{"sbp", "program", "--strategy", "exact", "--src", "placement 2; x = input 6,4 P; y = input 6,4 P(max); z = input 4,3 S(0); w = matmul x z; k = max y y; s = sum w 1,1; r = max k 1,4; q = add s r; grad q"}, nil, false, nil},
		{"unary", 3, []string{"sbp", "program", "--src", "placement 3; x = input 7,5 S(0); c = input 5 B; d = sub x c; r = relu d; q = sqrt x; n = neg q; m = mean r 7,1; a = mul n m; s = sum a 1,1; grad s"}, nil, false, nil},
		// The views: reshapes (one boxed first: [7 5] over 3 is uneven),
		// a permute and a transpose, each rank reshaping to its own shard.
		{"reshape", 3, []string{"sbp", "run", "--op", "reshape", "--to", "5,7", "--in", aPath, "--sbp", "S(0)", "--placement", "3"}, []string{"y.npy"}, false, nil},
		{"views", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; x = input 8,6 (S(0), S(1)); w = input 6,8 (B, B); h = matmul x w; v = reshape h 8,2,4; q = permute v 1,0,2; t = transpose q; u = reshape t 2,-1; s = sum u 1,1; grad s"}, nil, false, nil},
		// attention's scores, a batched matmul, and its gradients
		{"batched", 4, []string{"sbp", "program", "--src", "placement 4; q = input 2,8,16 S(0); k = input 2,16,8 S(0); s = matmul q k; t = sum s 1,1,1; grad t"}, nil, false, nil},
		{"transcendental", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; x = input 5,6 (S(0), S(1)); m = mean x 1,6; e = exp m; l = log e; t = tanh x; u = add t l; r = rsqrt u; s = sum r 1,1; grad s"}, nil, true, nil},
		// softmax along a split dim (boxed first) and a kept one, with
		// its gradient's mul, sum, sub, mul
		{"softmax", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; x = input 5,6 (S(0), S(1)); y = softmax x -1; w = input 5,6 (S(0), B); z = mul y w; p = softmax z 0; s = sum p 1,6; q = mul s s; t = sum q 1,1; grad t"}, nil, true, nil},
		// from uniform: the emitted file's uniform() makes the inputs the
		// simulation makes, byte for byte (exact); the values after them
		// within closeTo (torch's float32 matmul rounds its own way once
		// the values are not small integers).
		{"uniform", 4, []string{"sbp", "program", "--src", "placement [[0,1],[2,3]]; x = input 5,6 (S(0), B) from uniform; w = input 6,7 (B, S(1)) from uniform; h = matmul x w; t = tanh h; p = softmax t -1; s = sum p 1,7; q = mul s s; r = sum q 1,1; grad r"}, nil, true, []string{"x.npy", "w.npy"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			emitMatchesSim(t, py, dir, tc.name, tc.ranks, tc.args, tc.files, tc.tol)
			for _, f := range tc.exact {
				sameBytes(t, filepath.Join(dir, tc.name+".sim", f), filepath.Join(dir, tc.name+".torch", f))
			}
		})
	}
}

// TestEmitTorchGallery: the gallery's real layers (Megatron's MLP,
// attention with its heads split, sequence parallelism, ZeRO-3), emitted
// with --emit torch and run as torchrun would on gloo, one process per
// device of their placement (4; the three layers also on 2 and 3), save
// every tensor and gradient within closeTo's 1e-4 of --engine sim's
// (tanh, rsqrt and softmax round their own way in torch, and float32
// matmuls add in their own order).
func TestEmitTorchGallery(t *testing.T) {
	py := needTorch(t)
	dir := t.TempDir()
	list, err := os.ReadFile("../../../docs/gallery/gallery.sh")
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]bool{"program-megatron-mlp": true, "program-attention-heads": true, "program-sequence-parallel": true, "program-zero3": true}
	src := regexp.MustCompile(`--src '([^']*)'`)
	n := 0
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 5 || !layers[f[0]] {
			continue
		}
		m := src.FindStringSubmatch(f[1])
		if m == nil {
			t.Fatalf("%s: no --src", f[0])
		}
		n++
		// each at its own placement (4 devices), and the real layers
		// also on 2 and 3 processes (3 splits their heads and rows
		// unevenly, so the plan boxes what 4 did not)
		if !strings.HasPrefix(m[1], "placement 4;") {
			t.Fatalf("%s: the layers are written on placement 4, and the test places them on 2 and 3 too: %q", f[0], m[1])
		}
		places := []string{"placement 4"}
		if f[0] != "program-zero3" {
			places = append(places, "placement 2", "placement 3")
		}
		for _, pl := range places {
			src := strings.Replace(m[1], "placement 4", pl, 1)
			args := []string{"sbp", "program", "--src", src}
			if strings.Contains(f[1], "--strategy exact") {
				args = append(args, "--strategy", "exact")
			}
			prog, err := program.Parse(src)
			if err != nil {
				t.Fatalf("%s: %v", f[0], err)
			}
			name := fmt.Sprintf("%s-%d", f[0], prog.Placement.Size())
			t.Run(name, func(t *testing.T) { emitMatchesSim(t, py, dir, name, prog.Placement.Size(), args, nil, true) })
		}
	}
	if n != len(layers) {
		t.Errorf("%d of the gallery's %d layers found", n, len(layers))
	}
}

// emitMatchesSim runs args (an sbp command) with --engine sim's --out and
// with --emit torch run on ranks processes, and compares the files:
// files (nil: every file sim wrote) byte for byte, or within closeTo's
// 1e-4 when tol.
func emitMatchesSim(t *testing.T, py, dir, name string, ranks int, args, files []string, tol bool) {
	t.Helper()
	simOut, emitOut := filepath.Join(dir, name+".sim"), filepath.Join(dir, name+".torch")
	if files != nil {
		runCLI(t, append(args, "--out", filepath.Join(simOut+".npy"))...)
	} else {
		runCLI(t, append(args, "--out", simOut)...)
	}
	file := filepath.Join(dir, name+".py")
	if err := os.WriteFile(file, []byte(runCLI(t, append(args, "--emit", "torch")...)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-m", "py_compile", file).CombinedOutput(); err != nil {
		t.Fatalf("py_compile %s: %v: %s", file, err, out)
	}
	runWorld(t, py, file, ranks, "--out", emitOut)
	whole := files != nil
	if files == nil {
		entries, err := os.ReadDir(simOut)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, e.Name())
		}
	}
	for _, f := range files {
		want := filepath.Join(simOut, f)
		if whole {
			want = simOut + ".npy"
		}
		if tol {
			name := strings.TrimSuffix(f, ".npy")
			closeTo(t, name, readOut(t, emitOut, []string{name})[name], readOut(t, simOut, []string{name})[name])
			continue
		}
		sameBytes(t, want, filepath.Join(emitOut, f))
	}
}

// engineInputs writes the inputs of the engine tests to dir: a (7×5) and
// b (5×4), whose matmul over 3 devices splits unevenly, and x (5×6).
func engineInputs(t *testing.T, dir string) (aPath, bPath, xPath string) {
	t.Helper()
	a, _ := tensor.Arange(tensor.Float32, tensor.Shape{7, 5})
	b, _ := tensor.Arange(tensor.Float32, tensor.Shape{5, 4})
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{5, 6})
	return writeNpy(t, dir, "a.npy", a), writeNpy(t, dir, "b.npy", b), writeNpy(t, dir, "x.npy", x)
}

// sameBytes fails the test unless the file got holds the bytes of want
// (the --engine sim file).
func sameBytes(t *testing.T, want, got string) {
	t.Helper()
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Errorf("%s holds other bytes than --engine sim's %s", got, want)
	}
}
