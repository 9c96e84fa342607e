package sbp

import (
	"errors"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// Batched matmul lists a signature per output batch dim (S x S where
// both operands have it, S x B or B x S where one broadcasts), then the
// 2-D op's six in the 2-D op's order; OneFlow's list (EagerSignatures)
// is matmul's, batch_matmul's or broadcast_matmul's, as flow.matmul
// dispatches, then all-B.
func TestBatchedMatmulSignatures(t *testing.T) {
	const tail2D = "S(0) x B -> S(0); B x S(1) -> S(1); S(1) x S(0) -> P(sum); "
	for _, c := range []struct {
		a, b  tensor.Shape
		out   string
		want  string // Signatures
		eager string // EagerSignatures
	}{
		{tensor.Shape{4, 6}, tensor.Shape{6, 8}, "[4 8]",
			tail2D + "B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			tail2D + "P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
		// attention's scores: q [batch, s, d] x k^T [batch, d, s]
		{tensor.Shape{2, 8, 16}, tensor.Shape{2, 16, 8}, "[2 8 8]",
			"S(0) x S(0) -> S(0); S(1) x B -> S(1); B x S(2) -> S(2); S(2) x S(1) -> P(sum); B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			"S(0) x S(0) -> S(0); S(1) x B -> S(1); B x S(2) -> S(2); S(2) x S(1) -> P(sum); P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
		// a broadcasts along output dim 1 (size 1), b has no dim 0
		{tensor.Shape{3, 1, 4, 5}, tensor.Shape{2, 5, 6}, "[3 2 4 6]",
			"S(0) x B -> S(0); B x S(0) -> S(1); S(2) x B -> S(2); B x S(2) -> S(3); S(3) x S(1) -> P(sum); B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			"S(0) x B -> S(0); B x S(0) -> S(1); S(2) x B -> S(2); B x S(2) -> S(3); S(3) x S(1) -> P(sum); P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
		// a matrix times a batch: the matrix broadcasts
		{tensor.Shape{4, 5}, tensor.Shape{3, 5, 2}, "[3 4 2]",
			"B x S(0) -> S(0); S(0) x B -> S(1); B x S(2) -> S(2); S(1) x S(1) -> P(sum); B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			"B x S(0) -> S(0); S(0) x B -> S(1); B x S(2) -> S(2); S(1) x S(1) -> P(sum); P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
		// a batch dim of size 1 in both: batch_matmul splits it, as we do
		{tensor.Shape{1, 4, 5}, tensor.Shape{1, 5, 2}, "[1 4 2]",
			"S(0) x S(0) -> S(0); S(1) x B -> S(1); B x S(2) -> S(2); S(2) x S(1) -> P(sum); B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			"S(0) x S(0) -> S(0); S(1) x B -> S(1); B x S(2) -> S(2); S(2) x S(1) -> P(sum); P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
		// size 1 against none: broadcast_matmul lists nothing for it
		{tensor.Shape{1, 4, 5}, tensor.Shape{5, 2}, "[1 4 2]",
			"S(0) x B -> S(0); S(1) x B -> S(1); B x S(1) -> S(2); S(2) x S(0) -> P(sum); B x B -> B; P(sum) x B -> P(sum); B x P(sum) -> P(sum)",
			"S(1) x B -> S(1); B x S(1) -> S(2); S(2) x S(0) -> P(sum); P(sum) x B -> P(sum); B x P(sum) -> P(sum); B x B -> B"},
	} {
		shapes := []tensor.Shape{c.a, c.b}
		out, err := Matmul().OutShape(shapes)
		if err != nil || out.String() != c.out {
			t.Errorf("matmul %v x %v: shape %v, %v; want %s", c.a, c.b, out, err, c.out)
		}
		if got := sigList(Matmul().Signatures(shapes)); got != c.want {
			t.Errorf("matmul %v x %v: signatures\n  %s\nwant\n  %s", c.a, c.b, got, c.want)
		}
		if got := sigList(EagerSignatures(Matmul(), shapes)); got != c.eager {
			t.Errorf("matmul %v x %v: OneFlow's list\n  %s\nwant\n  %s", c.a, c.b, got, c.eager)
		}
	}
}

// Shapes matmul refuses: one error naming both shapes and the dims that
// disagree, and no signatures.
func TestMatmulShapeErrors(t *testing.T) {
	for _, c := range []struct {
		a, b tensor.Shape
		want string
	}{
		{tensor.Shape{6}, tensor.Shape{6, 2}, "sbp: matmul [6] x [6 2]: matmul multiplies matrices or batches of them, [..., m, k] x [..., k, n]; the operands have 1 and 2 dims (a 1-D operand is not taken: write it as a [1, k] or [k, 1] matrix)"},
		{tensor.Shape{2, 3}, tensor.Shape{}, "the operands have 2 and 0 dims"},
		{tensor.Shape{4, 6}, tensor.Shape{5, 8}, "sbp: matmul [4 6] x [5 8]: a has 6 columns but b has 5 rows"},
		{tensor.Shape{2, 3, 4}, tensor.Shape{2, 5, 6}, "sbp: matmul [2 3 4] x [2 5 6]: a's matrices have 4 columns (a's dim 2) but b's have 5 rows (b's dim 1)"},
		{tensor.Shape{3, 4, 5}, tensor.Shape{2, 5, 6}, "sbp: matmul [3 4 5] x [2 5 6]: the batch dims do not broadcast: a's dim 0 has size 3 but b's dim 0 has size 2"},
		{tensor.Shape{2, 3, 4, 5}, tensor.Shape{4, 5, 6}, "the batch dims do not broadcast: a's dim 1 has size 3 but b's dim 0 has size 4"},
	} {
		shapes := []tensor.Shape{c.a, c.b}
		_, err := Matmul().OutShape(shapes)
		if err == nil || !errors.Is(err, ErrShape) || !containsAll(err.Error(), c.want) {
			t.Errorf("matmul %v x %v: error %v, want ErrShape with %q", c.a, c.b, err, c.want)
		}
		if sigs := Matmul().Signatures(shapes); sigs != nil {
			t.Errorf("matmul %v x %v: signatures %v, want none", c.a, c.b, sigs)
		}
	}
}

// Infer takes each batched signature and explains each refused pair.
func TestBatchedMatmulInfer(t *testing.T) {
	two, _ := Devices(2)
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	qk := []tensor.Shape{{2, 8, 16}, {2, 16, 8}}
	bcast := []tensor.Shape{{3, 1, 4, 5}, {2, 5, 6}}
	for _, c := range []struct {
		shapes []tensor.Shape
		p      Placement
		a, b   string
		want   string // the output SBP, or the error's telling phrase
	}{
		{qk, two, "S(0)", "S(0)", "S(0)"},
		{qk, two, "S(2)", "S(1)", "P(sum)"},
		{qk, mesh, "(S(0), S(1))", "(S(0), B)", "(S(0), S(1))"},
		{qk, mesh, "(S(0), S(2))", "(S(0), S(1))", "(S(0), P(sum))"},
		{bcast, two, "B", "S(0)", "S(1)"},
		{bcast, two, "S(0)", "B", "S(0)"},
		{bcast, mesh, "(S(0), B)", "(B, S(0))", "(S(0), S(1))"},
		{qk, two, "S(0)", "B", "a split along batch dim 0 (S(0)) pairs only with b split along the same batch dim (S(0)), not B"},
		{qk, two, "B", "S(0)", "b split along batch dim 0 (S(0)) pairs only with a split along the same batch dim (S(0)), not B"},
		{qk, two, "S(1)", "S(1)", "a row of the product needs all of b's rows"},
		{qk, two, "S(1)", "S(2)", "only its own block of the product"},
		{qk, two, "B", "S(1)", "b split along k (S(1)) pairs only with a split along k (S(2)), not B"},
		{qk, two, "S(0)", "S(2)", "a split along batch dim 0 (S(0)) pairs only with b split along the same batch dim (S(0)), not S(2)"},
		{qk, two, "P", "P", "product of two sums"},
		{bcast, two, "S(1)", "B", "a's axis 1 has size 1 and broadcasts to 2; a split axis is never broadcast"},
		{bcast, two, "S(0)", "S(0)", "a split along batch dim 0 (S(0)) pairs only with b whole (B), since b broadcasts along batch dim 0, not S(0)"},
		{bcast, mesh, "(S(0), S(3))", "(B, B)", "on mesh dim 1"},
	} {
		a, err := ParseNd(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseNd(c.b)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Infer(Matmul(), c.shapes, c.p, []NdSbp{a, b})
		switch {
		case err == nil && out.String() != c.want:
			t.Errorf("matmul %v with %s x %s = %v; want %s", c.shapes, c.a, c.b, out, c.want)
		case err != nil && (!errors.Is(err, ErrSignature) || !containsAll(err.Error(), c.want, "valid")):
			t.Errorf("matmul %v with %s x %s: error %v; want ErrSignature with %q", c.shapes, c.a, c.b, err, c.want)
		}
	}
}
