package sbp

import (
	"errors"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// The documents' matmul signatures, and the illegal S(0) x S(0).
func TestMatmulSignatures(t *testing.T) {
	p, _ := Devices(2)
	shapes := []tensor.Shape{{4, 6}, {6, 8}}
	for _, c := range []struct{ a, b, out string }{
		{"S(0)", "B", "S(0)"}, {"B", "S(1)", "S(1)"}, {"S(1)", "S(0)", "P(sum)"}, {"B", "B", "B"},
		{"P", "B", "P(sum)"}, {"B", "P", "P(sum)"},
	} {
		a, _ := ParseNd(c.a)
		b, _ := ParseNd(c.b)
		out, _, err := Infer(Matmul(), shapes, p, []NdSbp{a, b})
		if err != nil || out.String() != c.out {
			t.Errorf("matmul %s x %s = %v, %v; want %s", c.a, c.b, out, err, c.out)
		}
	}
	for _, c := range []struct{ a, b, says string }{
		{"S(0)", "S(0)", "a row of the product needs all of b's rows"},
		{"S(1)", "B", "pairs only with b split along k"},
		{"P", "P", "product of two sums"},
		{"P(max)", "B", "never in a partial max"},
	} {
		a, _ := ParseNd(c.a)
		b, _ := ParseNd(c.b)
		_, _, err := Infer(Matmul(), shapes, p, []NdSbp{a, b})
		if err == nil || !errors.Is(err, ErrSignature) || !containsAll(err.Error(), "matmul [4 6] x [6 8]", a.String()+" x "+b.String(), c.says, "valid") {
			t.Errorf("matmul %s x %s: error %v, want ErrSignature naming the op, SBPs and %q", c.a, c.b, err, c.says)
		}
	}
}

func TestSignatures(t *testing.T) {
	two, _ := Devices(2)
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	for _, c := range []struct {
		op     Op
		shapes []tensor.Shape
		p      Placement
		in     []string
		want   string // the output SBP, or the error's telling phrase
	}{
		{Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, two, []string{"S(3)"}, "S(4)"},
		{Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, two, []string{"S(0)"}, "S(1)"},
		{Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, two, []string{"P(max)"}, "P(max)"},
		{Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, two, []string{"S(2)"}, "a split axis is never broadcast"},
		{Repeat([]int{1, 3}), []tensor.Shape{{4, 2}}, two, []string{"S(0)"}, "S(0)"},
		{Repeat([]int{1, 3}), []tensor.Shape{{4, 2}}, two, []string{"S(1)"}, "repeated 3 times"},
		{Binary(tensor.Add), []tensor.Shape{{4, 1}, {1, 3}}, two, []string{"S(0)", "B"}, "S(0)"},
		{Binary(tensor.Add), []tensor.Shape{{4, 1}, {1, 3}}, two, []string{"B", "S(1)"}, "S(1)"},
		{Binary(tensor.Add), []tensor.Shape{{4, 1}, {1, 3}}, two, []string{"S(1)", "B"}, "never broadcast"},
		{Binary(tensor.Add), []tensor.Shape{{4, 3}, {4, 3}}, two, []string{"S(0)", "S(1)"}, "pieces of different elements"},
		{Binary(tensor.Add), []tensor.Shape{{4, 3}, {3}}, two, []string{"P", "P"}, "P(sum)"},
		{Binary(tensor.Add), []tensor.Shape{{4, 3}, {3}}, two, []string{"P", "B"}, "not linear"},
		{Binary(tensor.Mul), []tensor.Shape{{4, 3}, {3}}, two, []string{"P", "B"}, "P(sum)"},
		{Binary(tensor.Max), []tensor.Shape{{4, 3}, {3}}, two, []string{"P(max)", "B"}, "P(max)"},
		{Binary(tensor.Div), []tensor.Shape{{4, 3}, {3}}, two, []string{"P", "B"}, "not linear"},
		{Binary(tensor.Eq), []tensor.Shape{{4, 1}, {1, 3}}, two, []string{"B", "S(1)"}, "S(1)"},
		{Binary(tensor.Eq), []tensor.Shape{{4, 3}, {3}}, two, []string{"P", "P"}, "eq has no partial signature"},
		{Binary(tensor.Eq), []tensor.Shape{{4, 3}, {3}}, two, []string{"P(max)", "B"}, "eq has no partial signature"},
		{Reduce(tensor.Sum, tensor.Shape{4, 1}), []tensor.Shape{{4, 3}}, two, []string{"S(0)"}, "S(0)"},
		{Reduce(tensor.Sum, tensor.Shape{4, 1}), []tensor.Shape{{4, 3}}, two, []string{"S(1)"}, "P(sum)"},
		{Reduce(tensor.MaxAll, tensor.Shape{3}), []tensor.Shape{{4, 3}}, two, []string{"S(0)"}, "P(max)"},
		{Reduce(tensor.MaxAll, tensor.Shape{3}), []tensor.Shape{{4, 3}}, two, []string{"S(1)"}, "S(0)"},
		{Reduce(tensor.MaxAll, tensor.Shape{3}), []tensor.Shape{{4, 3}}, two, []string{"P"}, "the max of a P(sum)"},
		{Reduce(tensor.Sum, tensor.Shape{1, 1}), []tensor.Shape{{4, 3}}, mesh, []string{"(S(0), S(1))"}, "(P(sum), P(sum))"},
		{Matmul(), []tensor.Shape{{4, 6}, {6, 8}}, mesh, []string{"(S(0), S(1))", "(B, S(0))"}, "(S(0), P(sum))"},
		{Matmul(), []tensor.Shape{{4, 6}, {6, 8}}, mesh, []string{"(S(0), B)", "(S(0), B)"}, "on mesh dim 0"},
		{Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{4, 3}}, mesh, []string{"(S(0), P(max))"}, "(P(max), P(max))"},
		{Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{4, 3}}, mesh, []string{"(S(0), P(min))"}, "each part's max"},
	} {
		in := make([]NdSbp, len(c.in))
		for i, s := range c.in {
			in[i], _ = ParseNd(s)
		}
		out, _, err := Infer(c.op, c.shapes, c.p, in)
		got := out.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%v %v with %v: %s, want %s", c.op, c.shapes, c.in, got, c.want)
		}
	}
}

// TestNdSignatureText: a plan's signatures are written as text (JSON's
// "signature") and read back the same, one per mesh dim; text that is
// not a signature is refused, naming the part that is wrong.
func TestNdSignatureText(t *testing.T) {
	matmul := Matmul().Signatures([]tensor.Shape{{4, 6}, {6, 8}})
	softmax := Softmax(1).Signatures([]tensor.Shape{{4, 6}})
	for _, n := range []NdSignature{nil, {matmul[0]}, {matmul[2], softmax[0]}, {matmul[len(matmul)-1], matmul[0], softmax[len(softmax)-1]}} {
		text, _ := n.MarshalText()
		var back NdSignature
		if err := back.UnmarshalText(text); err != nil || back.String() != n.String() || len(back) != len(n) {
			t.Errorf("%q read back as %q (%d dims, want %d): %v", text, back, len(back), len(n), err)
		}
	}
	if got := (NdSignature{matmul[0], softmax[0]}).String(); got != matmul[0].String()+"; "+softmax[0].String() {
		t.Errorf("two mesh dims spelled %q", got)
	}
	for _, c := range []struct{ text, says string }{
		{"S(0) x B", "want the inputs' SBPs, then ->"},
		{"S(0) x Q -> S(0)", "input 1"},
		{"S(0) x B -> S(x)", "the output"},
		{"S(0) -> S(0); B", "want the inputs' SBPs, then ->"},
	} {
		var n NdSignature
		err := n.UnmarshalText([]byte(c.text))
		if err == nil || !errors.Is(err, ErrParse) || !containsAll(err.Error(), c.text, c.says) {
			t.Errorf("%q: %v, want ErrParse naming it and %q", c.text, err, c.says)
		}
	}
}
