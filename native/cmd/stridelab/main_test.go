package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

func writeNpy(t *testing.T, dir, name string, x tensor.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := npyfile.WriteFile(p, x); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInput: every bad command line exits non-zero with exactly one
// line on stderr that names the problem, and nothing panics.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{4, 3, 1, 2})
	xp := writeNpy(t, dir, "x.npy", x)
	c, _ := tensor.Arange(tensor.Float32, tensor.Shape{4})
	cp := writeNpy(t, dir, "c.npy", c)
	i, _ := tensor.Arange(tensor.Int32, tensor.Shape{2})
	ip := writeNpy(t, dir, "i.npy", i)
	junk := filepath.Join(dir, "junk.npy")
	os.WriteFile(junk, []byte("not a numpy file at all"), 0o644)

	cases := []struct {
		args []string
		want string // a phrase the error line must contain
	}{
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"expand"}, "--in is required"},
		{[]string{"expand", "--in", xp}, "--size is required"},
		{[]string{"expand", "--in", xp, "--size", "4,5,1,2"}, "dim 1 has size 3, so the new size must be 3 or -1, not 5"},
		{[]string{"expand", "--in", xp, "--size", "4,3,1"}, "never drop them"},
		{[]string{"expand", "--in", xp, "--size", "-1,4,3,1,2"}, "new leading dim"},
		{[]string{"expand", "--in", xp, "--size", "4,x,1,2"}, "not an integer"},
		{[]string{"expand", "--in", xp, "--size", "4,,1,2"}, "empty"},
		{[]string{"expand", "--in", filepath.Join(dir, "missing.npy"), "--size", "1"}, "no such file"},
		{[]string{"expand", "--in", junk, "--size", "1"}, "magic"},
		{[]string{"expand", "--in", xp, "--size", "4,3,1,2", "--backend", "tpu"}, "choose cpu"},
		{[]string{"expand", "--in", xp, "--size", "4,3,1,2", "--bogus"}, "flag provided but not defined"},
		{[]string{"expand", "--in", xp, "--size", "4,3,1,2", "stray"}, "unexpected argument"},
		{[]string{"repeat", "--in", xp, "--times", "2,2"}, "give at least one per dim"},
		{[]string{"repeat", "--in", xp, "--times", "1,1,-1,1"}, "counts must be >= 0"},
		{[]string{"repeat", "--in", xp, "--times", "99999,99999,99999,99999,99999"}, "overflows int64"},
		{[]string{"reduce", "--in", xp, "--to", "4,2,1,2"}, "dim 1 has size 3"},
		{[]string{"reduce", "--in", xp, "--op", "mean", "--to", "1"}, "sum, max and min"},
		{[]string{"reduce", "--in", xp, "--to", "-4"}, "sizes must be >= 0"},
		{[]string{"reduce", "--in", xp, "--to", "1,1,1,1,1"}, "the target has 5 dims but the input only 4"},
		{[]string{"expand", "--in", xp, "--size", "4,3,1,2", "--max-bytes", "lots"}, "write a byte count such as 4GiB"},
		{[]string{"binary", "--op", "add", "--a", xp, "--b", cp}, "cannot broadcast"},
		{[]string{"binary", "--op", "pow", "--a", xp, "--b", cp}, "add, sub, mul"},
		{[]string{"binary", "--op", "add", "--a", cp, "--b", ip}, "float32 but b is int32"},
		{[]string{"grad"}, "grad expand or grad repeat"},
		{[]string{"grad", "expand", "--in-shape", "3,1", "--size", "2,3,4", "--grad", xp}, "--grad has shape [4 3 1 2]"},
		{[]string{"grad", "repeat", "--in-shape", "3,1", "--times", "2,3", "--grad", xp}, "the grad must too"},
		{[]string{"layout", "expand", "--shape", "4,3,1,2", "--size", "4,3,1,2", "--index", "9,9,9,9"}, "outside the output"},
		{[]string{"layout", "spin"}, "layout expand or layout repeat"},
		{[]string{"bench", "--runs", "0"}, "at least 1"},
		{[]string{"bench", "--tune", "fast"}, `--tune "fast": choose auto, gpu or cpu`},
		{[]string{"bench", "--cases", "mul"}, `--cases: no case starts with "mul"`},
		{[]string{"sbp"}, "sbp plan, sbp boxing, sbp run or sbp program"},
		{[]string{"sbp", "deploy"}, "unknown sbp command"},
		{[]string{"sbp", "plan", "--shape", "4"}, "--op is required"},
		{[]string{"sbp", "plan", "--op", "conv", "--shape", "4"}, "the ops are expand"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4"}, "needs --size"},
		{[]string{"sbp", "plan", "--op", "add", "--shape", "4", "--sbp", "B", "--placement", "2"}, "needs --b-shape"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3)"}, "--placement is required"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3", "--placement", "2"}, "write a split as S(axis)"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3)", "--placement", "[[0,1],[2]]"}, "rectangular"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(2)", "--placement", "2", "--strict"}, "a split axis is never broadcast"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(7)", "--placement", "2"}, "splits axis 7 but the tensor has 4 axes"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "(S(3), B)", "--placement", "2"}, "give one per mesh dim"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,5,3,4,2", "--sbp", "S(3)", "--placement", "2"}, "the new size must be 4 or -1"},
		{[]string{"sbp", "plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "6,8", "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "2", "--strict"}, "a row of the product needs all of b's rows"},
		{[]string{"sbp", "plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "5,8", "--sbp", "B", "--placement", "2"}, "a has 6 columns but b has 5 rows"},
		{[]string{"sbp", "plan", "--op", "matmul", "--shape", "3,4,6", "--b-shape", "2,6,8", "--sbp", "B", "--placement", "2"}, "matmul [3 4 6] x [2 6 8]: the batch dims do not broadcast: a's dim 0 has size 3 but b's dim 0 has size 2"},
		{[]string{"sbp", "plan", "--op", "matmul", "--shape", "6", "--b-shape", "6,8", "--sbp", "B", "--placement", "2"}, "a 1-D operand is not taken"},
		{[]string{"sbp", "plan", "--op", "matmul", "--shape", "3,1,4,6", "--b-shape", "2,6,8", "--sbp", "S(1)", "--b-sbp", "B", "--placement", "2", "--strict"}, "a's axis 1 has size 1 and broadcasts to 2; a split axis is never broadcast"},
		{[]string{"sbp", "plan", "--op", "reduce", "--to", "4,1", "--reduce", "max", "--shape", "4,3", "--sbp", "P", "--placement", "2", "--strict", "--emit", "oneflow"}, "the max of a P(sum)"},
		{[]string{"sbp", "plan", "--op", "reduce", "--to", "4,1", "--reduce", "max", "--shape", "4,3", "--sbp", "S(1)", "--placement", "2", "--emit", "oneflow"}, "OneFlow has only partial_sum"},
		{[]string{"sbp", "plan", "--op", "expand", "--shape", "4", "--size", "4", "--sbp", "B", "--placement", "2", "--emit", "jax"}, "choose oneflow or pytorch"},
		{[]string{"sbp", "boxing", "--shape", "25,33", "--from", "S(0)", "--to", "S(2)", "--placement", "4"}, "splits axis 2 but the tensor has 2 axes"},
		{[]string{"sbp", "boxing", "--shape", "25,33", "--from", "S(0)", "--placement", "4"}, "--to is required"},
		{[]string{"sbp", "boxing", "--shape", "25,33", "--from", "(P, P(max))", "--to", "B", "--placement", "[[0,1],[2,3]]"}, "mixes P(sum) and P(max)"},
		{[]string{"sbp", "run", "--op", "add", "--in", xp, "--sbp", "B", "--placement", "2"}, "needs --b"},
		{[]string{"sbp", "run", "--op", "add", "--in", xp, "--b", cp, "--sbp", "B", "--placement", "2"}, "cannot broadcast"},
		{[]string{"sbp", "run", "--op", "add", "--in", cp, "--b", ip, "--sbp", "B", "--placement", "2"}, "input 1 is int32 but input 0 is float32"},
		{[]string{"sbp", "run", "--op", "expand", "--in", junk, "--size", "1", "--sbp", "B", "--placement", "2"}, "magic"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		msg := stderr.String()
		if code == 0 {
			t.Errorf("stridelab %v: exit 0, want failure", tc.args)
			continue
		}
		if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tc.want) {
			t.Errorf("stridelab %v: stderr %q, want one line containing %q", tc.args, msg, tc.want)
		}
	}
}

func TestHelpEverywhere(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"expand", "--help"}, {"repeat", "-h"}, {"reduce", "--help"}, {"binary", "--help"},
		{"grad", "--help"}, {"grad", "expand", "--help"}, {"grad", "repeat", "--help"}, {"layout", "--help"},
		{"layout", "repeat", "--help"}, {"demo", "--help"}, {"bench", "--help"}, {"sbp", "--help"}, {"sbp", "plan", "--help"},
		{"sbp", "boxing", "-h"}, {"sbp", "run", "--help"}, {"sbp", "program", "--help"}, {"draw", "--help"}, {"draw", "expand", "--help"},
		{"draw", "program", "--help"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String()+stderr.String(), "usage") {
			t.Errorf("stridelab %v: exit %d, output %q", args, code, stdout.String()+stderr.String())
		}
	}
}

func TestLayoutJSONSeed(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"layout", "expand", "--shape", "4,1,3,5", "--size", "2,1,4,4,3,5", "--json", "--index", "1,0,2,3,1,4"}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	var r layoutReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.InStride, []int{15, 15, 5, 1}) || !slices.Equal(r.ViewStride, []int{0, 0, 15, 0, 5, 1}) || r.Trace.Offset != 39 ||
		!slices.Equal(r.Trace.InIndex, []int{2, 0, 1, 4}) {
		t.Errorf("layout expand JSON: %+v", r)
	}
	stdout.Reset()
	if code := run([]string{"layout", "repeat", "--shape", "3,1,5", "--times", "2,5,3,1", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if !r.InReshape.Equal(tensor.Shape{1, 3, 1, 5}) || !r.ViewShape.Equal(tensor.Shape{2, 5, 3, 3, 5}) || !r.OutShape.Equal(tensor.Shape{2, 15, 3, 5}) ||
		!slices.Equal(r.Trace.InIndex, []int{2, 0, 4}) {
		t.Errorf("layout repeat JSON: %+v", r)
	}
}

func TestDemoAndPrint(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo"}, &stdout, &stderr); code != 0 {
		t.Fatalf("demo: %s", stderr.String())
	}
	for _, want := range []string{"strides [0 0 15 0 5 1]", "strides [0 6 2 0 1]", "reshape [1 3 1 5] -> expand [2 5 3 3 5] -> reshape [2 15 3 5]", "pattern 101"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	dir := t.TempDir()
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{2, 1})
	xp := writeNpy(t, dir, "x.npy", x)
	stdout.Reset()
	if code := run([]string{"expand", "--in", xp, "--size", "2,3"}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if want := "int32 [2 3]\n[[0, 0, 0],\n [1, 1, 1]]\n"; stdout.String() != want {
		t.Errorf("printed %q, want %q", stdout.String(), want)
	}
}
