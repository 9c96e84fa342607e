package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type matmulTOp struct{ ta, tb bool }

// MatmulT is OneFlow's matmul with its transpose_a and transpose_b
// flags: Matmul of a's and b's matrices each transposed where its flag
// is set (the last two dims swapped), as OneFlow's matmul gradients are
// written (matmul.cpp: da = matmul(dy, b, transpose_b), db = matmul(a,
// dy, transpose_a)) instead of a separate transpose op. Its signatures
// are Matmul's on the transposed operands with a flagged operand's last
// two axes swapped back (a split of a's m is S(r-1) of a when transpose_a
// is set), which is also how OneFlow's lists read the flags
// (MatmulOp::GetSbp, BatchMatmulOp::GetSbp, BroadcastMatmulOp::GetSbp:
// m_axis, k_a_axis, k_b_axis, n_axis).
func MatmulT(ta, tb bool) Op { return matmulTOp{ta: ta, tb: tb} }

func (matmulTOp) Name() string { return "matmul_t" }
func (o matmulTOp) String() string {
	switch {
	case o.ta && o.tb:
		return "matmul (transpose_a, transpose_b)"
	case o.ta:
		return "matmul (transpose_a)"
	case o.tb:
		return "matmul (transpose_b)"
	}
	return "matmul"
}
func (matmulTOp) Arity() int { return 2 }

// flags is which operands are transposed.
func (o matmulTOp) flags() [2]bool { return [2]bool{o.ta, o.tb} }

// shapes is the operands as the product sees them: each flagged one with
// its last two dims swapped.
func (o matmulTOp) shapes(in []tensor.Shape) []tensor.Shape {
	out := []tensor.Shape{in[0].Clone(), in[1].Clone()}
	for j, t := range o.flags() {
		if r := len(out[j]); t && r >= 2 {
			out[j][r-2], out[j][r-1] = out[j][r-1], out[j][r-2]
		}
	}
	return out
}

// swapped maps a signature's SBPs between the transposed operands and
// the operands as given (its own inverse): a split of a flagged
// operand's last axis is one of the one before, and back.
func (o matmulTOp) swapped(in []tensor.Shape, sbps []SBP) []SBP {
	out := append([]SBP(nil), sbps...)
	for j, t := range o.flags() {
		r := len(in[j])
		if !t || out[j].Kind != Split || r < 2 {
			continue
		}
		switch out[j].Axis {
		case r - 1:
			out[j] = S(r - 2)
		case r - 2:
			out[j] = S(r - 1)
		}
	}
	return out
}

func (o matmulTOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	return Matmul().OutShape(o.shapes(in))
}

func (o matmulTOp) mapped(in []tensor.Shape, sigs []Signature) []Signature {
	out := make([]Signature, len(sigs))
	for i, s := range sigs {
		out[i] = Signature{In: o.swapped(in, s.In), Out: s.Out}
	}
	return out
}

func (o matmulTOp) Signatures(in []tensor.Shape) []Signature {
	return o.mapped(in, Matmul().Signatures(o.shapes(in)))
}

func (o matmulTOp) oneflow(in []tensor.Shape) []Signature {
	return o.mapped(in, matmulOp{}.oneflow(o.shapes(in)))
}

func (o matmulTOp) why(in []tensor.Shape, sbps []SBP) string {
	return Matmul().why(o.shapes(in), o.swapped(in, sbps))
}

func (o matmulTOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Matmul().Args(o.shapes(in), out)
}

// Local multiplies the device's shards with the flagged ones viewed
// transposed (a view: no copy).
func (o matmulTOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	args := []tensor.Tensor{in[0], in[1]}
	for j, t := range o.flags() {
		if !t {
			continue
		}
		r := len(args[j].Shape())
		perm := make([]int, r)
		for k := range perm {
			perm[k] = k
		}
		perm[r-2], perm[r-1] = r-1, r-2
		v, err := args[j].Permute(perm)
		if err != nil {
			return tensor.Tensor{}, err
		}
		args[j] = v
	}
	return Matmul().Local(be, args, out)
}

// transposedArgs spells x with each flagged operand transposed.
func transposedArgs(p OpParams, x []string) (string, string) {
	a, b := x[0], x[1]
	if p.TransA {
		a += ".transpose(-2, -1)"
	}
	if p.TransB {
		b += ".transpose(-2, -1)"
	}
	return a, b
}

func init() {
	registerOp(&OpSpec{
		Name: "matmul_t", // the backward's only
		Global: func(lib string, p OpParams, x []string, _ []tensor.Shape) string {
			a, b := transposedArgs(p, x)
			return fmt.Sprintf("%s.matmul(%s, %s)", lib, a, b)
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			a, b := transposedArgs(p, x)
			return fmt.Sprintf("matmul(%s, %s)", a, b)
		},
	})
}
