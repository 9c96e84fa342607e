package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestOneOp: the one-op program of every op the language has words for
// is the program its Source parses to, statement by statement; it plans
// that op, and its run equals sbp.Apply's. An op without words still
// plans and runs.
func TestOneOp(t *testing.T) {
	p, _ := sbp.ParsePlacement("[[0,1],[2,3]]")
	s0b, _ := sbp.ParseNd("(S(0), B)")
	bb, _ := sbp.ParseNd("(B, B)")
	ps, _ := sbp.ParseNd("(P(sum), B)")
	cases := []struct {
		op     sbp.Op
		shapes []tensor.Shape
		in     []sbp.NdSbp
		last   string // the op's statement; "" where Source does not parse
	}{
		{sbp.Expand([]int{2, -1, 3}), []tensor.Shape{{5, 1}}, []sbp.NdSbp{s0b}, "y = expand x 2,-1,3"},
		{sbp.Repeat([]int{2, 1, 3}), []tensor.Shape{{5, 1}}, []sbp.NdSbp{bb}, "y = repeat x 2,1,3"},
		{sbp.Reduce(tensor.Sum, tensor.Shape{}), []tensor.Shape{{5, 3}}, []sbp.NdSbp{s0b}, "y = sum x ()"},
		{sbp.Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{5, 3}}, []sbp.NdSbp{s0b}, "y = max x 1,3"},
		{sbp.Matmul(), []tensor.Shape{{5, 3}, {3, 2}}, []sbp.NdSbp{ps, bb}, "y = matmul a b"},
		{sbp.Binary(tensor.Div), []tensor.Shape{{5, 3}, {3}}, []sbp.NdSbp{s0b, s0b}, "y = div a b"},
		{sbp.Binary(tensor.Min), []tensor.Shape{{5, 3}, {3}}, []sbp.NdSbp{bb, bb}, "y = min a b"},
		{sbp.Binary(tensor.Eq), []tensor.Shape{{5, 3}, {3}}, []sbp.NdSbp{s0b, bb}, "y = eq a b"},
		{sbp.Transpose(), []tensor.Shape{{5, 3}}, []sbp.NdSbp{s0b}, "y = transpose x"},
		{sbp.Permute([]int{2, 0, 1}), []tensor.Shape{{5, 3, 2}}, []sbp.NdSbp{s0b}, "y = permute x 2,0,1"},
		{sbp.Reshape([]int{-1, 2}), []tensor.Shape{{5, 3, 2}}, []sbp.NdSbp{s0b}, "y = reshape x -1,2"},
		{sbp.Reduce(tensor.MinAll, tensor.Shape{}), []tensor.Shape{{5, 3}}, []sbp.NdSbp{bb}, ""},
	}
	for _, c := range cases {
		names := program.OneOpInputs(c.op)
		one, err := program.OneOp(p, c.op, names, c.shapes, c.in)
		if err != nil {
			t.Fatalf("%v: %v", c.op, err)
		}
		lines := strings.Split(one.Source, "\n")
		parsed, err := program.Parse(one.Source)
		switch {
		case c.last == "" && err == nil:
			t.Errorf("%v: %q parses, but the language has no word for the op", c.op, one.Source)
		case c.last != "" && (err != nil || lines[len(lines)-1] != c.last):
			t.Errorf("%v: %q: %v, want it to end %q", c.op, one.Source, err, c.last)
		case c.last != "":
			if got, want := stmts(one), stmts(parsed); got != want {
				t.Errorf("%v: OneOp's statements\n%s\nParse's\n%s", c.op, got, want)
			}
		}
		pl, err := NewPlan(one, Greedy)
		if err != nil {
			t.Fatalf("%s: %v", one.Source, err)
		}
		last := pl.Steps[len(pl.Steps)-1]
		if last.Name != "y" || last.Operation() == nil || last.Operation().String() != c.op.String() {
			t.Errorf("%s: the last step is %s %v, want y = %v", one.Source, last.Name, last.Operation(), c.op)
		}
		vals := Values{}
		var globals []*sbp.Global
		for i, n := range names {
			v, _ := tensor.Arange(tensor.Float32, c.shapes[i])
			vals[n] = v
			g, err := sbp.Scatter(tensor.CPU{}, v, p, c.in[i])
			if err != nil {
				t.Fatal(err)
			}
			globals = append(globals, g)
		}
		got, err := pl.Run(tensor.CPU{}, vals)
		if err != nil {
			t.Fatalf("%s: %v", one.Source, err)
		}
		g, _, err := sbp.Apply(c.op, globals...)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := g.Full()
		if !got["y"].Shape().Equal(want.Shape()) || fmt.Sprint(got["y"].Float64s()) != fmt.Sprint(want.Float64s()) {
			t.Errorf("%s: y is %v %v, sbp.Apply's %v %v", one.Source, got["y"].Shape(), got["y"].Float64s(), want.Shape(), want.Float64s())
		}
	}
}

// stmts spells a program's statements, every field, one a line.
func stmts(p *program.Program) string {
	var b strings.Builder
	for _, s := range p.Stmts {
		var par any
		if s.Op != nil {
			par = sbp.Params(s.Op)
		}
		fmt.Fprintf(&b, "%d:%d %q %d %s %s %v %v %v %v %q %v\n", s.Line, s.Col, s.Text, s.Kind, s.Name, s.Word, s.Op, s.Args, s.Shape, s.Sbp, s.From, par)
	}
	return b.String()
}

// OneOp's faults name their statement, as Parse's do.
func TestOneOpFaults(t *testing.T) {
	p, _ := sbp.ParsePlacement("2")
	_, err := program.OneOp(p, sbp.Matmul(), []string{"a", "b"}, []tensor.Shape{{4, 6}, {5, 8}}, []sbp.NdSbp{{sbp.B}, {sbp.B}})
	if err == nil || err.Error() != "program: line 4, column 1: y = matmul a b: matmul [4 6] x [5 8]: a has 6 columns but b has 5 rows" {
		t.Errorf("a shape mismatch: %v", err)
	}
	_, err = program.OneOp(p, sbp.Expand([]int{4, 3}), []string{"x"}, []tensor.Shape{{4, 3}}, []sbp.NdSbp{{sbp.S(2)}})
	if err == nil || !strings.HasPrefix(err.Error(), "program: line 2, column 1: x = input 4,3 S(2): ") {
		t.Errorf("a bad SBP: %v", err)
	}
	_, err = program.OneOp(p, sbp.Binary(tensor.Add), []string{"a", "a"}, []tensor.Shape{{4}, {4}}, []sbp.NdSbp{{sbp.B}, {sbp.B}})
	if err == nil || !strings.HasPrefix(err.Error(), "program: line 3, column 1: a = input 4 B: a is already defined (line 2)") {
		t.Errorf("a name given twice: %v", err)
	}
}
