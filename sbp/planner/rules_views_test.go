package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestViewBackward: transpose's gradient is a transpose, permute's a
// permute by the inverse order, reshape's a reshape back to x's shape;
// each is one op whose output has x's shape.
func TestViewBackward(t *testing.T) {
	for _, c := range []struct {
		stmt string
		x    string // x's shape
		op   string // the backward's op and its argument
		why  string
	}{
		{"y = transpose x", "2,4,3", "transpose", "transpose's backward is a transpose"},
		{"y = permute x 2,0,1", "2,4,3", "permute by [1 2 0]", "permutes by the inverse order 1,2,0"},
		{"y = permute x 0,2,1,3", "2,4,3,2", "permute by [0 2 1 3]", "inverse order 0,2,1,3"},
		{"y = reshape x 8,-1", "2,4,3", "reshape to [2 4 3]", "reshapes back to [2 4 3]"},
		{"y = reshape x 24", "2,4,3", "reshape to [2 4 3]", "reshapes back to [2 4 3]"},
	} {
		src := "placement 2; x = input " + c.x + " S(0); " + c.stmt + "; grad y"
		plan := planned(t, src, Greedy)
		var ops []Step
		for _, s := range plan.Steps {
			if s.Pass == graph.Backward && s.Kind == StepOp {
				ops = append(ops, s)
			}
		}
		if len(ops) != 1 {
			t.Errorf("%s: the backward runs %d ops, want 1", c.stmt, len(ops))
			continue
		}
		g := ops[0]
		want, _ := tensor.ParseShape(c.x)
		if g.op.String() != c.op || !g.Shape.Equal(want) || !strings.Contains(g.Why, c.why) {
			t.Errorf("%s: the backward is %v of shape %v (%q), want %s of shape %v saying %q", c.stmt, g.op, g.Shape, g.Why, c.op, want, c.why)
		}
	}
}

// TestViewStatements: the words parse to the op and shape they say, and
// every bad statement is one line naming it.
func TestViewStatements(t *testing.T) {
	for _, c := range []struct {
		stmt, want string // want: the shape, or the error
	}{
		{"y = transpose x", "[2 4 3 8]"},
		{"y = permute x 0,2,1,3", "[2 8 4 3]"},
		{"y = reshape x 8,4,-1", "[8 4 6]"},
		{"y = reshape x 2,96", "[2 96]"},
		{"y = transpose", "line 3, column 1: y = transpose: transpose takes one name: transpose X"},
		{"y = transpose x 1,0", "y = transpose x 1,0: transpose takes one name"},
		{"y = permute x", "y = permute x: permute takes a name and an order of its dims: permute X 0,2,1,3"},
		{"y = permute x 0,1 2", "permute takes a name and an order"},
		{"y = permute x 0,1,2", "permute [2 4 8 3] by [0 1 2]: the order [0 1 2] has 3 entries for 4 dims"},
		{"y = permute x 0,1,1,2", "names dim 1 twice"},
		{"y = permute x 0,1,a,2", "y = permute x 0,1,a,2: "},
		{"y = reshape x", "reshape takes a name and a shape: reshape X 8,4,16"},
		{"y = reshape x 8,4,16", "reshape [2 4 8 3] to [8 4 16]: the input has 192 elements but the new shape has 512"},
		{"y = reshape x -1,-1", "dims 0 and 1 are both -1"},
		{"y = reshape z 8", "z is not defined"},
		{"transpose = reshape x 8", "transpose"},
	} {
		src := "placement 2\nx = input 2,4,8,3 S(0)\n" + c.stmt
		p, err := program.Parse(src)
		got := ""
		if err != nil {
			got = err.Error()
			if strings.Contains(got, "\n") {
				t.Errorf("%s: the error is more than one line: %q", c.stmt, got)
			}
		} else {
			got = p.Stmts[len(p.Stmts)-1].Shape.String()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to contain %q", c.stmt, got, c.want)
		}
	}
}

// TestReshapeBoxingSaysWhy: a reshape whose input's split cannot carry
// through is boxed first, and the boxing's why gives the reshape's own
// reason (a flattened dim after the first; an uneven split).
func TestReshapeBoxingSaysWhy(t *testing.T) {
	for _, c := range []struct{ src, why string }{
		{"placement 2; x = input 4,6 S(1); y = reshape x 24", "reshape cannot take x as S(1): dim 1 is flattened after dim 0"},
		{"placement 2; x = input 7,3 S(0); y = reshape x 21", "reshape cannot take x as S(0): input dims [0 1] of [7 3] are output dims [0] of [21]; device 0 holds their elements [0, 12)"},
	} {
		plan := planned(t, c.src, Greedy)
		var whys []string
		for _, s := range plan.Steps {
			if s.Kind == StepBoxing {
				whys = append(whys, s.Why)
			}
		}
		if !slices.ContainsFunc(whys, func(w string) bool { return strings.Contains(w, c.why) }) {
			t.Errorf("%s: the boxings say %q, want one to say %q", c.src, whys, c.why)
		}
	}
}
