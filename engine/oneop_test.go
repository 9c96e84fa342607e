package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestOpProgram: the one-op program of every op with a program word
// plans that op (the same String) and its run equals sbp.Apply's.
func TestOpProgram(t *testing.T) {
	p, _ := sbp.ParsePlacement("[[0,1],[2,3]]")
	s0b, _ := sbp.ParseNd("(S(0), B)")
	bb, _ := sbp.ParseNd("(B, B)")
	ps, _ := sbp.ParseNd("(P(sum), B)")
	cases := []struct {
		op     sbp.Op
		shapes []tensor.Shape
		in     []sbp.NdSbp
	}{
		{sbp.Expand([]int{2, -1, 3}), []tensor.Shape{{5, 1}}, []sbp.NdSbp{s0b}},
		{sbp.Repeat([]int{2, 1, 3}), []tensor.Shape{{5, 1}}, []sbp.NdSbp{bb}},
		{sbp.Reduce(tensor.Sum, tensor.Shape{}), []tensor.Shape{{5, 3}}, []sbp.NdSbp{s0b}},
		{sbp.Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{5, 3}}, []sbp.NdSbp{s0b}},
		{sbp.Matmul(), []tensor.Shape{{5, 3}, {3, 2}}, []sbp.NdSbp{ps, bb}},
		{sbp.Binary(tensor.Div), []tensor.Shape{{5, 3}, {3}}, []sbp.NdSbp{s0b, s0b}},
		{sbp.Binary(tensor.Min), []tensor.Shape{{5, 3}, {3}}, []sbp.NdSbp{bb, bb}},
	}
	for _, c := range cases {
		src, err := engine.OpProgram(p, c.op, c.shapes, c.in)
		if err != nil {
			t.Fatalf("%v: %v", c.op, err)
		}
		pr, err := program.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		pl, err := program.NewPlan(pr, program.Greedy)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		last := pl.Steps[len(pl.Steps)-1]
		if last.Name != "y" || last.Operation() == nil || last.Operation().String() != c.op.String() {
			t.Errorf("%s: the last step is %s %v, want y = %v", src, last.Name, last.Operation(), c.op)
		}
		vals := program.Values{}
		var globals []*sbp.Global
		for i, n := range engine.InputNames(c.op) {
			v, _ := tensor.Arange(tensor.Float32, c.shapes[i])
			vals[n] = v
			g, err := sbp.Scatter(tensor.CPU{}, v, p, c.in[i])
			if err != nil {
				t.Fatal(err)
			}
			globals = append(globals, g)
		}
		res, err := engine.Sim{}.Run(context.Background(), pl, vals)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		g, _, err := sbp.Apply(c.op, globals...)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := g.Full()
		if ag, err := tensor.Agree(res.Values["y"], want, tensor.Tolerance); err != nil || !ag.Agrees {
			t.Errorf("%s: %s (%v)", src, ag.Words("one device's"), err)
		}
	}
	for _, op := range []sbp.Op{sbp.Binary(tensor.Eq), sbp.Transpose(), sbp.Reduce(tensor.MinAll, tensor.Shape{})} {
		shapes := []tensor.Shape{{5, 3}, {5, 3}}[:op.Arity()]
		in := []sbp.NdSbp{bb, bb}[:op.Arity()]
		if _, err := engine.OpProgram(p, op, shapes, in); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want a one-line error", op, err)
		}
	}
}

func TestBoxingProgram(t *testing.T) {
	p, _ := sbp.ParsePlacement("4")
	src := engine.BoxingProgram(p, tensor.Shape{25, 33}, sbp.NdSbp{sbp.S(0)}, sbp.NdSbp{sbp.S(1)})
	pl := plan(t, src)
	last := pl.Steps[len(pl.Steps)-1]
	if last.Name != "y" || last.Kind != program.StepBoxing || strings.Join(last.Collectives, "+") != "all-to-all" || last.SendBytes != 672+3*600 {
		t.Errorf("%s: the last step is %+v", src, last)
	}
}
