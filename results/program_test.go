package results

import (
	"context"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestProgramFromUniform: the playground's and the desktop's results
// panel runs a program whose inputs come from uniform (no file needed)
// and finds every tensor and gradient equal to the single-device run's;
// a program that needs a file says which input lacks its values.
func TestProgramFromUniform(t *testing.T) {
	s, err := viz.Build(viz.Spec{Scene: "program", Values: map[string]string{"src": "placement [[0,1],[2,3]]; x = input 6,8 (S(0), B) from uniform; w = input 8,4 (B, S(1)) from uniform; y = matmul x w; t = tanh y; s = sum t 1,1; grad s"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compute(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(got.Lines, "\n")
	if !strings.Contains(text, "10 of 10 tensors and gradients agree with the single-device run") {
		t.Errorf("Compute says\n%s\nwant all 10 (x, w, y, t, s and their gradients) to agree", text)
	}
	file, err := viz.Build(viz.Spec{Scene: "program", Values: map[string]string{"src": "placement 2; x = input 6,8 S(0) from x.npy; s = sum x 1,1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(context.Background(), file, nil); err == nil || !strings.Contains(err.Error(), "input x comes from x.npy, but no values were given for it") {
		t.Errorf("a program from x.npy without its file: %v", err)
	}
}
