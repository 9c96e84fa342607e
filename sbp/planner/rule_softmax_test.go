package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
)

// TestSoftmaxStatement: y = softmax x D reads D counted from either end
// and keeps x's shape.
func TestSoftmaxStatement(t *testing.T) {
	p, err := program.Parse("placement 2; x = input 4,6 S(0); y = softmax x -1; z = softmax x 0")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"y": "softmax along -1", "z": "softmax along 0"} {
		s := p.Lookup(name)
		if s.Word != "softmax" || s.Op.String() != want || s.Shape.String() != "[4 6]" {
			t.Errorf("%s: %s %v %v, want softmax %s [4 6]", name, s.Word, s.Op, s.Shape, want)
		}
	}
}

// TestSoftmaxBackward: softmax's gradient is OneFlow's softmax_grad(y,
// grad), y·(grad − sum(grad·y, d)); on rows split along another dim it
// keeps the split, so the backward sends nothing; along a split d,
// greedy boxes the input first and the forward's all-to-all is the only
// collective.
func TestSoftmaxBackward(t *testing.T) {
	for _, c := range []struct {
		src, sbp string
		sent     bool
	}{
		{"placement 2; x = input 4,6 S(0); y = softmax x -1; grad y", "S(0)", false},
		{"placement 3; x = input 2,5,4 S(2); y = softmax x 1; grad y", "S(2)", false},
		{"placement 4; x = input 8,16 S(1); y = softmax x 1; grad y", "S(0)", true},
	} {
		plan := planned(t, c.src, Greedy)
		var ops, sbps []string
		var last Step
		fwdSent, bwdSent := 0.0, 0.0
		for _, s := range plan.Steps {
			switch {
			case s.Kind == StepBoxing && s.Pass == graph.Forward:
				fwdSent += float64(s.SendBytes)
			case s.Kind == StepBoxing && s.Pass == graph.Backward && s.Name != "grad_x":
				bwdSent += float64(s.SendBytes)
			case s.Pass == graph.Backward && s.Kind == StepOp:
				ops, sbps, last = append(ops, s.Op), append(sbps, s.OutSbp.String()), s
			}
		}
		if got := strings.Join(ops, " "); got != "softmax_grad" {
			t.Errorf("%s: the backward runs %s, want softmax_grad", c.src, got)
		}
		if got := strings.Join(sbps, " "); got != c.sbp {
			t.Errorf("%s: the backward's output is %s, want %s", c.src, got, c.sbp)
		}
		if !strings.Contains(last.Why, "dy/dx = y · (grad - sum(grad · y, dim") {
			t.Errorf("%s: the last step's why is %q", c.src, last.Why)
		}
		if bwdSent != 0 || (fwdSent > 0) != c.sent {
			t.Errorf("%s: forward sends %v bytes, backward %v; want the backward none and the forward some: %v", c.src, fwdSent, bwdSent, c.sent)
		}
	}
}
