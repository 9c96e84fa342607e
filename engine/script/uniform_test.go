package script

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// TestUniformPythonMatchesGo: the uniform() that emitted files hold
// (tensor.UniformPython, run by the interpreter the engine runs, with
// NumPy) gives tensor.Uniform's values bit for bit, for names of one
// byte, of several, none and non-ASCII, over shapes up to 2^17
// elements (so the multiplier's products pass 2^32 many times).
func TestUniformPythonMatchesGo(t *testing.T) {
	py := needTorch(t)
	cases := []struct {
		name  string
		shape tensor.Shape
	}{
		{"w", tensor.Shape{32, 128}},
		{"x", tensor.Shape{7}},
		{"w_qkv", tensor.Shape{2, 8, 16, 64}},
		{"", tensor.Shape{3, 5}},
		{"höhe", tensor.Shape{4, 4}},
		{"e", tensor.Shape{0, 4}},
	}
	var script strings.Builder
	script.WriteString("import numpy as np\n")
	script.WriteString(tensor.UniformPython)
	for _, c := range cases {
		fmt.Fprintf(&script, "print('v=' + uniform(%s, %s).astype('<f4').tobytes().hex())\n", pyStr(c.name), sbp.PyList(c.shape))
	}
	out, err := exec.Command(py, "-c", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%.2000s", py, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("python printed %d lines, want %d:\n%.2000s", len(lines), len(cases), out)
	}
	for k, c := range cases {
		raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(lines[k]), "v="))
		if err != nil {
			t.Fatalf("%q %v: %v", c.name, c.shape, err)
		}
		want, err := tensor.Uniform(c.name, c.shape)
		if err != nil {
			t.Fatal(err)
		}
		w := want.Float64s()
		if len(raw) != 4*len(w) {
			t.Errorf("uniform(%q, %v): python gave %d values, Go %d", c.name, c.shape, len(raw)/4, len(w))
			continue
		}
		for i := range w {
			if got := binary.LittleEndian.Uint32(raw[4*i:]); got != math.Float32bits(float32(w[i])) {
				t.Errorf("uniform(%q, %v) at %d: python %v, Go %v", c.name, c.shape, i, math.Float32frombits(got), w[i])
				break
			}
		}
	}
}
