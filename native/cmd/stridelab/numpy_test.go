package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// numpyCases are CLI runs whose results NumPy computes too. In each, the
// script writes the inputs (a.npy, b.npy) and NumPy's answer (want.npy)
// into the case's directory; the CLI args may name a.npy, b.npy, g.npy.
var numpyCases = []struct {
	name   string
	script string
	args   []string
}{
	{"expand scalar", "a = np.array(3.5, np.float32); w = np.broadcast_to(a, (2, 3))", []string{"expand", "--in", "a.npy", "--size", "2,3"}},
	{"expand 1-d", "a = np.arange(4, dtype=np.float32); w = np.broadcast_to(a, (3, 4))", []string{"expand", "--in", "a.npy", "--size", "3,-1"}},
	{"expand seed", "a = np.random.rand(4,1,3,5).astype(np.float32); w = np.broadcast_to(a, (2,1,4,4,3,5))", []string{"expand", "--in", "a.npy", "--size", "2,1,4,4,3,5"}},
	{"expand to empty", "a = np.ones((3,1), np.int32); w = np.broadcast_to(a, (0,3,0))", []string{"expand", "--in", "a.npy", "--size", "0,3,0"}},
	{"expand int64 in", "a = np.arange(3).reshape(3,1); w = np.broadcast_to(a, (3,5)).astype(np.int32)", []string{"expand", "--in", "a.npy", "--size", "-1,5"}},
	{"tile seed", "a = np.random.rand(4,1,3,5).astype(np.float32); w = np.tile(a, (2,1,2,4,1,1))", []string{"repeat", "--in", "a.npy", "--times", "2,1,2,4,1,1"}},
	{"tile 1-d", "a = np.arange(5, dtype=np.uint32); w = np.tile(a, 3)", []string{"repeat", "--in", "a.npy", "--times", "3"}},
	{"tile scalar", "a = np.array(7, np.int32); w = np.tile(a, (2,3))", []string{"repeat", "--in", "a.npy", "--times", "2,3"}},
	{"tile zero", "a = np.arange(6, dtype=np.float32).reshape(2,3); w = np.tile(a, (0,2))", []string{"repeat", "--in", "a.npy", "--times", "0,2"}},
	{"tile empty in", "a = np.zeros((0,3), np.float32); w = np.tile(a, (2,2))", []string{"repeat", "--in", "a.npy", "--times", "2,2"}},
	{"sum axes 0,2", "a = np.random.rand(6,5,7).astype(np.float32); w = a.sum(axis=(0,2), keepdims=True)", []string{"reduce", "--in", "a.npy", "--op", "sum", "--to", "1,5,1"}},
	{"sum leading", "a = np.random.rand(3,4,5).astype(np.float32); w = a.sum(axis=0)", []string{"reduce", "--in", "a.npy", "--to", "4,5"}},
	{"sum all", "a = np.random.rand(33,65).astype(np.float32); w = np.array(a.sum(), np.float32)", []string{"reduce", "--in", "a.npy", "--to", "()"}},
	{"sum empty", "a = np.zeros((0,4), np.float32); w = a.sum(axis=0, keepdims=True)", []string{"reduce", "--in", "a.npy", "--to", "1,4"}},
	{"max axis 1", "a = np.random.randn(5,257).astype(np.float32); w = a.max(axis=1, keepdims=True)", []string{"reduce", "--in", "a.npy", "--op", "max", "--to", "5,1"}},
	{"min int", "a = np.random.randint(-99,99,(4,3,2)).astype(np.int32); w = a.min(axis=(0,2), keepdims=True)", []string{"reduce", "--in", "a.npy", "--op", "min", "--to", "1,3,1"}},
	{"add broadcast", "a = np.random.rand(4,1,6).astype(np.float32); b = np.random.rand(3,1).astype(np.float32); w = a + b", []string{"binary", "--op", "add", "--a", "a.npy", "--b", "b.npy"}},
	{"sub scalar", "a = np.array(1.5, np.float32); b = np.random.rand(2,3).astype(np.float32); w = a - b", []string{"binary", "--op", "sub", "--a", "a.npy", "--b", "b.npy"}},
	{"mul int", "a = np.arange(12, dtype=np.int32).reshape(3,4); b = np.arange(4, dtype=np.int32); w = a * b", []string{"binary", "--op", "mul", "--a", "a.npy", "--b", "b.npy"}},
	{"div float", "a = np.random.rand(3,4).astype(np.float32); b = (np.random.rand(4)+0.5).astype(np.float32); w = a / b", []string{"binary", "--op", "div", "--a", "a.npy", "--b", "b.npy"}},
	{"max", "a = np.random.randn(5,1).astype(np.float32); b = np.random.randn(5).astype(np.float32); w = np.maximum(a, b)", []string{"binary", "--op", "max", "--a", "a.npy", "--b", "b.npy"}},
	{"min empty", "a = np.zeros((0,3), np.float32); b = np.ones(3, np.float32); w = np.minimum(a, b)", []string{"binary", "--op", "min", "--a", "a.npy", "--b", "b.npy"}},
	{"eq int", "a = np.random.randint(-3,3,(5,1)).astype(np.int32); b = np.random.randint(-3,3,(4,)).astype(np.int32); w = (a == b).astype(np.int32)", []string{"binary", "--op", "eq", "--a", "a.npy", "--b", "b.npy"}},
	{"eq float nan", "a = np.array([1, np.nan, 0, np.inf, 2], np.float32); b = np.array([1, np.nan, -0.0, np.inf, 3], np.float32); w = (a == b).astype(np.float32)", []string{"binary", "--op", "eq", "--a", "a.npy", "--b", "b.npy"}},
	{"grad expand", "g = np.random.rand(2,3,4).astype(np.float32); np.save('g.npy', g); a = g; w = g.sum(axis=(0,2)).reshape(3,1)", []string{"grad", "expand", "--in-shape", "3,1", "--size", "2,3,4", "--grad", "g.npy"}},
	{"sbp expand seed", "a = np.random.rand(4,3,1,2).astype(np.float32); w = np.broadcast_to(a, (2,4,3,4,2))", []string{"sbp", "run", "--op", "expand", "--in", "a.npy", "--size", "2,4,3,4,2", "--sbp", "S(3)", "--placement", "3"}},
	{"sbp tile mesh", "a = np.random.rand(5,1,3).astype(np.float32); w = np.tile(a, (2,1,4,1))", []string{"sbp", "run", "--op", "repeat", "--in", "a.npy", "--times", "2,1,4,1", "--sbp", "(S(0), P)", "--placement", "[[0,1],[2,3]]"}},
	{"sbp add uneven", "a = np.random.rand(25,33).astype(np.float32); b = np.random.rand(33).astype(np.float32); w = a + b", []string{"sbp", "run", "--op", "add", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(1)", "--b-sbp", "S(0)", "--placement", "4"}},
	{"sbp max boxed", "a = np.random.randn(13,17).astype(np.float32); b = np.random.randn(13,1).astype(np.float32); w = np.maximum(a, b)", []string{"sbp", "run", "--op", "max", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(1)", "--b-sbp", "S(0)", "--placement", "0-3"}},
	{"sbp sum to partial", "a = np.random.rand(16,32).astype(np.float32); w = a.sum(axis=0, keepdims=True)", []string{"sbp", "run", "--op", "reduce", "--in", "a.npy", "--to", "1,32", "--sbp", "(S(0), S(1))", "--placement", "[[0,1],[2,3]]"}},
	{"sbp min int", "a = np.random.randint(-99,99,(8,5)).astype(np.int32); w = a.min(axis=0)", []string{"sbp", "run", "--op", "reduce", "--reduce", "min", "--in", "a.npy", "--to", "5", "--sbp", "S(0)", "--placement", "cuda:0-7"}},
	{"sbp matmul illegal boxed", "a = np.random.rand(12,18).astype(np.float32); b = np.random.rand(18,24).astype(np.float32); w = a @ b", []string{"sbp", "run", "--op", "matmul", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "3"}},
	{"sbp matmul partial", "a = np.random.rand(12,18).astype(np.float32); b = np.random.rand(18,24).astype(np.float32); w = a @ b", []string{"sbp", "run", "--op", "matmul", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(1)", "--b-sbp", "S(0)", "--placement", "5"}},
	{"sbp matmul batched", "a = np.random.rand(3,4,5).astype(np.float32); b = np.random.rand(3,5,6).astype(np.float32); w = a @ b", []string{"sbp", "run", "--op", "matmul", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "2"}},
	{"sbp matmul broadcast batch", "a = np.random.rand(3,1,4,5).astype(np.float32); b = np.random.rand(2,5,6).astype(np.float32); w = a @ b", []string{"sbp", "run", "--op", "matmul", "--in", "a.npy", "--b", "b.npy", "--sbp", "(S(0), B)", "--b-sbp", "(B, S(0))", "--placement", "[[0,1],[2,3]]"}},
	{"sbp matmul matrix by batch boxed", "a = np.random.rand(4,5).astype(np.float32); b = np.random.rand(7,5,2).astype(np.float32); w = a @ b", []string{"sbp", "run", "--op", "matmul", "--in", "a.npy", "--b", "b.npy", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "3"}},
	{"grad repeat", "g = np.random.rand(6,3).astype(np.float32); np.save('g.npy', g); a = g; w = g.reshape(2,3,3,1).sum(axis=(0,2))", []string{"grad", "repeat", "--in-shape", "3,1", "--times", "2,3", "--grad", "g.npy"}},
}

// TestAgainstNumPy runs the CLI on files NumPy wrote and compares with
// NumPy's own results, element for element (float sums within 1e-5), on
// the CPU and, where a WebGPU adapter exists, on the GPU
// (STRIDELAB_REQUIRE_GPU=1 makes a missing adapter a failure).
func TestAgainstNumPy(t *testing.T) {
	py := requireNumPy(t)
	root := t.TempDir()
	var script strings.Builder
	script.WriteString("import numpy as np, os\nnp.random.seed(1)\n")
	for i, c := range numpyCases {
		dir := filepath.Join(root, fmt.Sprint(i))
		os.MkdirAll(dir, 0o755)
		fmt.Fprintf(&script, "os.chdir(%q)\nb = None\n%s\nnp.save('a.npy', a)\nb is not None and np.save('b.npy', b)\nnp.save('want.npy', np.array(w, order='C'))\n", dir, c.script)
	}
	if out, err := exec.Command(py, "-c", script.String()).CombinedOutput(); err != nil {
		t.Fatalf("numpy script: %v\n%s", err, out)
	}
	backends := []string{"cpu"}
	if dev, err := shaders.Open(shaders.Options{}); err == nil {
		dev.Close()
		backends = append(backends, "gpu")
	} else if os.Getenv("STRIDELAB_REQUIRE_GPU") == "1" {
		t.Fatalf("a WebGPU adapter is required (STRIDELAB_REQUIRE_GPU=1): %v", err)
	}
	for i, c := range numpyCases {
		for _, be := range backends {
			t.Run(c.name+"/"+be, func(t *testing.T) {
				checkAgainstNumPy(t, filepath.Join(root, fmt.Sprint(i)), append(c.args, "--backend", be))
			})
		}
	}
}

func checkAgainstNumPy(t *testing.T, dir string, cargs []string) {
	args := make([]string, len(cargs))
	for k, a := range cargs {
		if strings.HasSuffix(a, ".npy") {
			a = filepath.Join(dir, a)
		}
		args[k] = a
	}
	got := filepath.Join(dir, "got-"+cargs[len(cargs)-1]+".npy")
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--out", got), &stdout, &stderr); code != 0 {
		t.Fatalf("stridelab %v: exit %d: %s", args, code, stderr.String())
	}
	g, _, err := npyfile.ReadFile(got, npyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := npyfile.ReadFile(filepath.Join(dir, "want.npy"), npyfile.Options{Float64: true})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Shape().Equal(w.Shape()) {
		t.Fatalf("shape %v, NumPy %v", g.Shape(), w.Shape())
	}
	gv, wv := g.Float64s(), w.Float64s()
	for k := range gv {
		if math.Abs(gv[k]-wv[k]) > 1e-5*math.Max(1, math.Abs(wv[k])) {
			t.Fatalf("element %d: %v, NumPy %v", k, gv[k], wv[k])
		}
	}
}
