package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/internal/pythontest"
	"github.com/stridelab/stridelab/tensor"
)

// importPython is the interpreter the import tests trace with and take
// their reference from (pythontest.Torch: skipped without one, a
// failure where make test requires it).
func importPython(t *testing.T) string {
	t.Helper()
	return pythontest.Torch(t, torch.FindPython)
}

// testModel is one of importer/testdata's models, the keyword arguments
// it is built with, and its examples: the token ids and the next tokens,
// int64, of batch 2 and 16 positions (three of the next tokens −100,
// cross_entropy's ignore_index).
type testModel struct {
	file, class, kwargs string
	vocab               int
	examples            []string
}

var testModels = []testModel{
	{"tinygpt.py", "TinyGPT", `{"gelu": ["tanh", "none"]}`, 64, []string{"idx", "targets"}}, // GELU's two forms, one a block
	{"tinyllama.py", "TinyLlama", "{}", 48, []string{"tokens", "targets"}},
}

// TestImportAgreesWithPyTorch: a small GPT (LayerNorm, a fused qkv split
// in three, a causal mask, GELU in the tanh form and in erf's, biases) and a small Llama (RMSNorm, a
// boolean causal mask through torch.where, SwiGLU, a tied head),
// imported with .npy examples on 1 device, 2 devices and a 2×2 mesh
// (data parallelism), run with sbp program --out under greedy, exact (on 2
// devices and the 2×2 mesh: on 1 it is greedy's plan), and on the torch
// engine with 2 processes: the loss
// agrees with the module's own forward in PyTorch at float64 within
// 1e-4, and every parameter's gradient with its backward() within 1e-3
// norm-wise.
func TestImportAgreesWithPyTorch(t *testing.T) {
	py := importPython(t)
	testdata, err := filepath.Abs("../../../importer/testdata")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, m := range testModels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkImport(t, py, testdata, m)
		}()
	}
	wg.Wait()
}

// checkImport imports m on each placement, runs it, and compares every
// run with the module's own float64 forward and backward.
func checkImport(t *testing.T, py, testdata string, m testModel) {
	dir := t.TempDir()
	var script strings.Builder
	script.WriteString("import numpy as np\nr = np.random.default_rng(7)\n")
	for _, e := range m.examples {
		fmt.Fprintf(&script, "a = r.integers(0, %d, (2, 16)).astype(np.int64)\n", m.vocab)
		if e == "targets" {
			script.WriteString("a[0, :3] = -100  # cross_entropy's ignore_index: three tokens not counted\n")
		}
		fmt.Fprintf(&script, "np.save(%q, a)\n", filepath.Join(dir, e+".npy"))
	}
	if out, err := exec.Command(py, "-c", script.String()).CombinedOutput(); err != nil {
		t.Fatalf("%s: the examples: %v: %s", m.class, err, out)
	}
	// One trace a model: imported on 2 devices, the program on 1 device
	// and on the 2×2 mesh is the same with its placement line and its
	// layouts' words for that mesh (B, S(0): (B, B), (S(0), S(0))), which
	// is all --placement changes (TestLowerOnEveryMesh in importer).
	imp := filepath.Join(dir, "import")
	args := []string{"import", "--model", filepath.Join(testdata, m.file) + ":" + m.class, "--kwargs", m.kwargs, "--placement", "2", "--python", py, "-o", imp}
	for _, e := range m.examples {
		args = append(args, "--example", e+"="+filepath.Join(dir, e+".npy"))
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("%s: import exits %d: %s", m.class, code, stderr.String())
	}
	text, err := os.ReadFile(filepath.Join(imp, "model.st"))
	if err != nil {
		t.Fatal(err)
	}
	layout := regexp.MustCompile(`(?m)^(\S+ = (?:input|const) \S+ )(B|S\(0\))( |$)`)
	var pairs []string
	for _, placement := range []string{"1", "2", "[[0,1],[2,3]]"} {
		src := strings.Replace(string(text), "\nplacement 2\n", "\nplacement "+placement+"\n", 1)
		if strings.HasPrefix(placement, "[") {
			src = layout.ReplaceAllString(src, "$1($2, $2)$3")
		}
		file := filepath.Join(imp, "model-"+strings.Trim(placement, "[]")+".st")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// exact on 2 devices and the 2×2 mesh; on 1 every layout is the
		// whole tensor and exact is greedy's plan by construction
		// (planner.NewPlanWith)
		strategies := []string{"greedy"}
		if placement != "1" {
			strategies = append(strategies, "exact")
		}
		for _, s := range strategies {
			out := filepath.Join(dir, "run-"+strings.Trim(placement, "[]")+"-"+s)
			stdout.Reset()
			stderr.Reset()
			if code := run([]string{"sbp", "program", "--file", file, "--strategy", s, "--out", out}, &stdout, &stderr); code != 0 {
				t.Errorf("%s on %s, %s: sbp program exits %d: %s", m.class, placement, s, code, stderr.String())
				continue
			}
			pairs = append(pairs, imp+":"+out)
		}
		if placement == "2" {
			out := filepath.Join(dir, "torch")
			stdout.Reset()
			stderr.Reset()
			if code := run([]string{"sbp", "program", "--file", file, "--engine", "torch", "--python", py, "--out", out}, &stdout, &stderr); code != 0 {
				t.Errorf("%s on the torch engine: exit %d: %s", m.class, code, stderr.String())
			} else {
				pairs = append(pairs, imp+":"+out)
			}
		}
	}
	args = append([]string{filepath.Join(testdata, "reference.py"), filepath.Join(testdata, m.file), m.class, m.kwargs, "0", dir}, m.examples...)
	args = append(append(args, "--"), pairs...)
	out, err := exec.Command(py, args...).Output()
	if err != nil {
		t.Fatalf("%s: the reference: %v", m.class, err)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Run     string             `json:"run"`
			Loss    [2]float64         `json:"loss"`
			LossErr float64            `json:"loss_err"`
			Grads   map[string]float64 `json:"grads"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		seen++
		run := filepath.Base(r.Run)
		if !(r.LossErr <= 1e-4) {
			t.Errorf("%s %s: loss %v, PyTorch's %v", m.class, run, r.Loss[1], r.Loss[0])
		}
		if len(r.Grads) == 0 {
			t.Errorf("%s %s: no gradients compared", m.class, run)
		}
		for path, e := range r.Grads {
			if !(e <= 1e-3) {
				t.Errorf("%s %s: %s's gradient is %.3g from PyTorch's, norm-wise", m.class, run, path, e)
			}
		}
	}
	if seen != len(pairs) || seen < 5 {
		t.Errorf("%s: %d runs compared of %d", m.class, seen, len(pairs))
	}
}

// TestImportRefusals: every fault is one line naming what was wrong,
// with no Python traceback and nothing written: an aten op the importer
// has no statement for (named with the module path it came from), a
// forward that returns no scalar, a constructor that fails, a missing
// class or file, and the flags' own faults.
func TestImportRefusals(t *testing.T) {
	testdata, err := filepath.Abs("../../../importer/testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	v, _ := tensor.FromSlice(tensor.Shape{4}, []float32{1, 2, 3, 4})
	x := writeNpy(t, dir, "x.npy", v)
	faulty := filepath.Join(testdata, "faulty.py")
	out := filepath.Join(dir, "out")
	cases := []struct {
		args   []string
		code   int
		want   string
		python bool // the case starts the tracer
	}{
		{[]string{"--model", faulty + ":CumsumInBlock", "--example", "x=" + x}, 1, "stridelab import: h.0: aten.cumsum is not supported (docs/import.md lists the ops the importer writes)", true},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=" + x}, 1, "stridelab import: NotScalar's forward returns a tensor of shape [4], not a scalar loss", true},
		{[]string{"--model", faulty + ":Broken", "--kwargs", `{"width": 8}`, "--example", "x=" + x}, 1, `stridelab import: Broken(**{"width": 8}) fails: ValueError: width 8 is not supported`, true},
		{[]string{"--model", faulty + ":Missing", "--example", "x=" + x}, 1, "stridelab import: " + faulty + " has no class Missing (its modules: Broken, CumsumInBlock, NotScalar, Running)", true},
		{[]string{"--model", filepath.Join(dir, "nowhere.py") + ":M", "--example", "x=" + x}, 1, "stridelab import: " + filepath.Join(dir, "nowhere.py") + ": no such file", false},
		{[]string{"--model", faulty, "--example", "x=" + x}, 2, "stridelab import: --model \"" + faulty + "\": write FILE.py:CLASS", false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x"}, 2, `stridelab import: --example "x": write NAME=FILE.npy or NAME=DTYPE:SHAPE`, false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=int64:8,x"}, 2, `stridelab import: --example "x=int64:8,x": `, false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=" + x, "--layout", "w"}, 2, `stridelab import: --layout "w": write PATTERN=SBP`, false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=" + x, "--kwargs", "[1]"}, 2, `stridelab import: --kwargs "[1]" is not a JSON object`, false},
		{[]string{"--model", faulty + ":NotScalar"}, 1, "stridelab import: give the forward's arguments with --example", false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=" + x, "--precision", "fp8"}, 2, `stridelab import: --precision "fp8": choose f32, bf16 or f16`, false},
		{[]string{"--model", faulty + ":NotScalar", "--example", "x=" + x, "--optimizer", "lion"}, 2, `stridelab import: --optimizer: optimizer takes adam or sgd`, false},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		if c.python {
			importPython(t)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			code := run(append(append([]string{"import"}, c.args...), "-o", out), &stdout, &stderr)
			msg := stderr.String()
			if code != c.code || !strings.HasPrefix(msg, c.want) || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "Traceback") {
				t.Errorf("import %v: exit %d, stderr %q; want exit %d and one line starting %q", c.args, code, msg, c.code, c.want)
			}
		}()
	}
	wg.Wait()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote %s: %v", out, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.import-*")); len(left) > 0 {
		t.Errorf("a refused import left %v behind", left)
	}
}
