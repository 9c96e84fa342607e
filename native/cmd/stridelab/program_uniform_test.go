package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// TestProgramFromUniform: the report says where each input's values
// come from (x from uniform, w without from an arange), the JSON's
// input step says uniform, --out saves x as tensor.Uniform's values bit
// for bit, and a misspelt source is one line naming the statement.
func TestProgramFromUniform(t *testing.T) {
	const src = "placement 2; x = input 4,6 S(0) from uniform; w = input 6,3 B; y = matmul x w"
	report := runCLI(t, "sbp", "program", "--src", src)
	for _, want := range []string{"x = input from uniform  [4 6]", "w = input               [6 3]"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	var plan struct {
		Steps []struct{ Name, Values string }
	}
	if err := json.Unmarshal([]byte(runCLI(t, "sbp", "program", "--src", src, "--json")), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) < 2 || plan.Steps[0].Values != "uniform" || plan.Steps[1].Values != "arange" {
		t.Errorf("the JSON's input steps: %+v, want x uniform and w arange", plan.Steps)
	}

	dir := t.TempDir()
	runCLI(t, "sbp", "program", "--src", src, "--out", dir)
	got := readOut(t, dir, []string{"x"})["x"].Float64s()
	want, err := tensor.Uniform("x", tensor.Shape{4, 6})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want.Float64s() {
		if math.Float32bits(float32(got[i])) != math.Float32bits(float32(w)) {
			t.Fatalf("x.npy at %d = %v, want %v", i, got[i], w)
		}
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"sbp", "program", "--src", "placement 2; x = input 4,6 S(0) from unifrom"}, &stdout, &stderr); code == 0 {
		t.Fatal("from unifrom ran")
	}
	line := strings.TrimSuffix(stderr.String(), "\n")
	if strings.Contains(line, "\n") || !strings.Contains(line, `x = input 4,6 S(0) from unifrom: from takes uniform (values spread over [-1, 1)) or a .npy file, not "unifrom"`) {
		t.Errorf("from unifrom: stderr %q, want one line naming the statement", stderr.String())
	}
}
