package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type matmulOp struct{}

// Matmul is the product of a [..., m, k] and b [..., k, n], NumPy's and
// torch's matmul of operands of 2 dims or more: the last two dims are
// the matrices, the dims before them are batch dims that broadcast as
// NumPy broadcasts (aligned from the right; equal, or one of them 1 or
// absent). For 2-D operands it is the example of the OneFlow documents.
//
//	out[β, i, j] = Σ_k a[β_a, i, k] · b[β_b, k, j]
//
// where β runs over the broadcast batch shape and β_a, β_b are its index
// into each operand's batch dims (0 where that operand's dim is 1). Its
// signatures, first one per output batch dim d (in order), then the 2-D
// op's on the last two dims (in the 2-D op's order, so 2-D operands list
// exactly what they always listed):
//
//	S(d) x S(d) -> S(d)     both have batch dim d: each device multiplies
//	                        its own batches
//	S(d) x B    -> S(d)     b broadcasts along d (size 1 or absent): every
//	B    x S(d) -> S(d)     device needs all of b; and the mirror image
//	S(m) x B    -> S(m)     rows of a, all of b: rows of the product
//	B    x S(n) -> S(n)     all of a, columns of b: columns of the product
//	S(k) x S(k) -> P(sum)   a k-range of both: a partial product
//	B    x B    -> B
//	P(sum) x B  -> P(sum),  B x P(sum) -> P(sum)   linear in each operand
//
// with each operand's S(d) at that operand's own axis (a dim of the
// output is dim d − (rank(out) − rank(x)) of operand x). S(m) x S(k) is
// illegal: a row of the product needs all k rows of b. A 1-D operand is
// refused (NumPy would treat it as a row or a column and drop that dim
// again; write it as a [1, k] or [k, 1] matrix). Each device computes its
// product as the broadcast kernels would: a as [..., m, k, 1] times b as
// [..., 1, k, n], a broadcast mul, then a sum over k.
func Matmul() Op { return matmulOp{} }

func (matmulOp) Name() string   { return "matmul" }
func (matmulOp) String() string { return "matmul" }
func (matmulOp) Arity() int     { return 2 }

func (o matmulOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	a, b := in[0], in[1]
	if len(a) < 2 || len(b) < 2 {
		return nil, newError(ErrShape, describe(o, in), "matmul multiplies matrices or batches of them, [..., m, k] x [..., k, n]; the operands have %d and %d dims (a 1-D operand is not taken: write it as a [1, k] or [k, 1] matrix)", len(a), len(b))
	}
	ra, rb := len(a), len(b)
	if a[ra-1] != b[rb-2] {
		if ra == 2 && rb == 2 {
			return nil, newError(ErrShape, describe(o, in), "a has %d columns but b has %d rows", a[1], b[0])
		}
		return nil, newError(ErrShape, describe(o, in), "a's matrices have %d columns (a's dim %d) but b's have %d rows (b's dim %d)", a[ra-1], ra-1, b[rb-2], rb-2)
	}
	r := max(ra, rb)
	out := make(tensor.Shape, r)
	for d := range r - 2 {
		na, nb := batchDim(a, r, d), batchDim(b, r, d)
		switch {
		case na == nb || nb == 1:
			out[d] = na
		case na == 1:
			out[d] = nb
		default:
			return nil, newError(ErrShape, describe(o, in), "the batch dims do not broadcast: a's dim %d has size %d but b's dim %d has size %d (batch dims must be equal, or one of them 1 or absent)", d-(r-ra), na, d-(r-rb), nb)
		}
	}
	out[r-2], out[r-1] = a[ra-2], b[rb-1]
	return out, nil
}

// batchDim is x's size along dim d of an output of rank r, aligned from
// the right: 1 where x has no such dim.
func batchDim(x tensor.Shape, r, d int) int {
	if lead := r - len(x); d >= lead {
		return x[d-lead]
	}
	return 1
}

func (o matmulOp) Signatures(in []tensor.Shape) []Signature {
	out, err := o.OutShape(in)
	if err != nil {
		return nil
	}
	a, b := in[0], in[1]
	ra, rb, r := len(a), len(b), len(out)
	var sigs []Signature
	for d := range r - 2 {
		ha, hb := kept(a, out, d), kept(b, out, d)
		switch {
		case ha && hb:
			sigs = append(sigs, Signature{In: []SBP{S(d - (r - ra)), S(d - (r - rb))}, Out: S(d)})
		case ha:
			sigs = append(sigs, Signature{In: []SBP{S(d - (r - ra)), B}, Out: S(d)})
		case hb:
			sigs = append(sigs, Signature{In: []SBP{B, S(d - (r - rb))}, Out: S(d)})
		}
	}
	return append(sigs, matrixSignatures(ra, rb)...)
}

// matrixSignatures are the 2-D op's six signatures, in its order, on the
// last two dims of operands of ranks ra and rb (each operand's axes its
// own, the output's rank the larger).
func matrixSignatures(ra, rb int) []Signature {
	r := max(ra, rb)
	return []Signature{
		{In: []SBP{S(ra - 2), B}, Out: S(r - 2)},
		{In: []SBP{B, S(rb - 1)}, Out: S(r - 1)},
		{In: []SBP{S(ra - 1), S(rb - 2)}, Out: PSum},
		{In: []SBP{B, B}, Out: B},
		{In: []SBP{PSum, B}, Out: PSum},
		{In: []SBP{B, PSum}, Out: PSum},
	}
}

func (o matmulOp) why(in []tensor.Shape, sbps []SBP) string {
	out, err := o.OutShape(in)
	if err != nil {
		return ""
	}
	r := len(out)
	names := [2]string{"a", "b"}
	// along names the dim operand i is split along: m, k, n, or batch
	// dim d of the output.
	along := func(i, axis int) string {
		n := len(in[i])
		switch {
		case i == 0 && axis == n-2:
			return "m"
		case i == 0 && axis == n-1, i == 1 && axis == n-2:
			return "k"
		case i == 1 && axis == n-1:
			return "n"
		}
		return fmt.Sprintf("batch dim %d", axis+r-n)
	}
	isBatch := func(i int, s SBP) bool { return s.Kind == Split && s.Axis < len(in[i])-2 }
	for i, s := range sbps {
		if isBatch(i, s) && !kept(in[i], out, s.Axis+r-len(in[i])) {
			return fmt.Sprintf("%s's axis %d has size 1 and broadcasts to %d; a split axis is never broadcast", names[i], s.Axis, out[s.Axis+r-len(in[i])])
		}
	}
	a, b := sbps[0], sbps[1]
	switch {
	case a.Kind == Partial && b.Kind == Partial:
		return "the product of two sums is not the sum of the products"
	case a.Kind == Partial || b.Kind == Partial:
		return "a matmul is linear in one partial-sum operand only when the other is B, and never in a partial max or min"
	}
	// partner says what the other operand must be for operand i's split s.
	partner := func(i int, s SBP) string {
		j := 1 - i
		switch d := s.Axis + r - len(in[i]); {
		case isBatch(i, s) && kept(in[j], out, d):
			return fmt.Sprintf("%s split along the same batch dim (S(%d))", names[j], d-(r-len(in[j])))
		case isBatch(i, s):
			return fmt.Sprintf("%s whole (B), since %s broadcasts along batch dim %d", names[j], names[j], d)
		case along(i, s.Axis) == "k" && i == 0:
			return fmt.Sprintf("b split along k (S(%d))", len(in[1])-2)
		case along(i, s.Axis) == "k":
			return fmt.Sprintf("a split along k (S(%d))", len(in[0])-1)
		}
		return fmt.Sprintf("%s whole (B)", names[j])
	}
	switch {
	case a.Kind == Split && b.Kind == Split && along(0, a.Axis) == "m" && along(1, b.Axis) == "k":
		return "each device holds some rows of a and some k-rows of b, but a row of the product needs all of b's rows"
	case a.Kind == Split && b.Kind == Split && along(0, a.Axis) == "m" && along(1, b.Axis) == "n":
		return "each device holds some rows of a and some columns of b, so it could make only its own block of the product, not whole rows or whole columns"
	case a.Kind == Split:
		return fmt.Sprintf("a split along %s (S(%d)) pairs only with %s, not %v", along(0, a.Axis), a.Axis, partner(0, a), b)
	case b.Kind == Split:
		return fmt.Sprintf("b split along %s (S(%d)) pairs only with %s, not %v", along(1, b.Axis), b.Axis, partner(1, b), a)
	}
	return ""
}

func (o matmulOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local multiplies one device's shards as the broadcast kernels would:
// a [..., m, k] viewed as [..., m, k, 1] and b [..., k, n] as
// [..., 1, k, n] broadcast-multiply to [..., m, k, n], and a sum over k
// gives [..., m, 1, n], the output shard's shape with the 1 inserted. On
// a backend that runs both as one call (tensor.BinaryReducer: WebGPU) the
// [..., m, k, n] products stay on the device.
func (o matmulOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	a, b := in[0], in[1]
	a1, err := insertOne(be, a, len(a.Shape()))
	if err != nil {
		return tensor.Tensor{}, err
	}
	b1, err := insertOne(be, b, len(b.Shape())-2)
	if err != nil {
		return tensor.Tensor{}, err
	}
	r := len(out)
	to := append(append(out[:r-1:r-1].Clone(), 1), out[r-1])
	sum, err := tensor.BinaryReduce(be, tensor.Mul, tensor.Sum, a1, b1, to)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return sum.Reshape(out)
}

// insertOne views t with a dim of size 1 inserted before dim at (a
// reshape, so no copy), materializing t first where its layout has no
// such view.
func insertOne(be tensor.Backend, t tensor.Tensor, at int) (tensor.Tensor, error) {
	s := t.Shape()
	shape := append(append(s[:at:at].Clone(), 1), s[at:]...)
	v, err := t.Reshape(shape)
	if err == nil {
		return v, nil
	}
	m, err := be.Materialize(t)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return m.Reshape(shape)
}

func init() {
	registerOp(&OpSpec{
		Name: "matmul",
		Grad: gradMatmul,
		Words: []OpWord{{Word: "matmul", Usage: "A B", Order: 10,
			Build: func(c *WordCall) (Op, error) {
				if _, err := twoNames(c); err != nil {
					return nil, err
				}
				return Matmul(), nil
			},
			Spell: func(OpParams) (string, bool) { return "", true },
		}},
		// torch.matmul and flow.matmul broadcast batch dims as NumPy's matmul
		Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.matmul(%s, %s)", lib, x[0], x[1])
		},
		Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("matmul(%s, %s)", x[0], x[1])
		},
	})
}

// gradMatmul is matmul's backward as OneFlow writes it (matmul.cpp:
// Matmul and BroadcastMatmul), each gradient a matmul with transpose
// flags (MatmulT) rather than a transpose op:
//
//	da = matmul(dy, b, transpose_b)     summed like a where a broadcast
//	db = matmul(a, dy, transpose_a)     summed like b where b broadcast,
//	     or broadcast_matmul_grad_b(a, dy) for a 2-D b under a batched a
//
// (reduce_sum_like over the batch dims the operand broadcast).
func gradMatmul(b Backward, c GradCall) (string, error) {
	a, w := c.Args[0], c.Args[1]
	as, ws := b.Shape(a), b.Shape(w)
	if c.J == 1 && len(ws) == 2 && len(as) > 2 {
		return b.Add(c.Name, BroadcastMatmulGradB(), c.Why+" = "+a+"^T · grad, summed over the batch (broadcast_matmul_grad_b)", a, c.Dy)
	}
	op, why, args, x := MatmulT(false, true), c.Why+" = grad · "+w+"^T (matmul, transpose_b)", []string{c.Dy, w}, a
	if c.J == 1 {
		op, why, args, x = MatmulT(true, false), c.Why+" = "+a+"^T · grad (matmul, transpose_a)", []string{a, c.Dy}, w
	}
	return opThenSumLike(b, c.Name, x, op, why, args...)
}
