package sbp

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// permuteOp reorders the dims of a tensor: y's dim j is x's dim perm[j].
// A nil perm is transpose, which swaps the last two dims whatever the rank.
type permuteOp struct{ perm []int }

// Permute reorders the dims of a global tensor, as torch's x.permute(perm)
// and NumPy's transpose(x, perm):
//
//	y[i_0, …, i_{n−1}] = x[j],  j[perm[k]] = i_k,  shape(y)_k = shape(x)_{perm[k]}
//
// Its signatures, one per input dim (in order) and then the ones every
// copy has:
//
//	S(perm[k]) -> S(k)   x's split dim becomes y's dim k, where it now sits
//	B          -> B
//	P(op)      -> P(op)  a permute moves values without combining them, so
//	                     it commutes with sum, max and min
//
// Every SBP of the input has a signature. Each device materializes the
// permuted view of its shard (a strided view, then one copy, since every
// simulated device owns its values' buffers), so it runs on any backend.
func Permute(perm []int) Op { return permuteOp{perm: slices.Clone(perm)} }

// Transpose swaps the last two dims, torch's x.transpose(-2, -1): the
// matrix transpose of a matrix and of each matrix of a batch. It is
// Permute(0, …, n−3, n−1, n−2) for an n-dim input.
func Transpose() Op { return permuteOp{} }

func (o permuteOp) Name() string {
	if o.perm == nil {
		return "transpose"
	}
	return "permute"
}

func (o permuteOp) String() string {
	if o.perm == nil {
		return "transpose"
	}
	return fmt.Sprintf("permute by %v", o.perm)
}

func (permuteOp) Arity() int { return 1 }

// order returns the permutation for an input of rank n.
func (o permuteOp) order(n int) []int {
	if o.perm != nil {
		return o.perm
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	if n >= 2 {
		p[n-1], p[n-2] = n-2, n-1
	}
	return p
}

func (o permuteOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	x := in[0]
	if o.perm == nil {
		if len(x) < 2 {
			return nil, newError(ErrShape, describe(o, in), "transpose swaps the last two dims; the input %v has %d", x, len(x))
		}
	} else if err := checkPerm(o.perm, len(x)); err != "" {
		return nil, newError(ErrShape, describe(o, in), "%s", err)
	}
	perm := o.order(len(x))
	out := make(tensor.Shape, len(x))
	for k, d := range perm {
		out[k] = x[d]
	}
	return out, nil
}

// checkPerm says what is wrong with perm as an order of n dims, or "".
func checkPerm(perm []int, n int) string {
	if len(perm) != n {
		return fmt.Sprintf("the order %v has %d entries for %d dims: give each dim once", perm, len(perm), n)
	}
	seen := make([]bool, n)
	for _, d := range perm {
		switch {
		case d < 0 || d >= n:
			return fmt.Sprintf("the order %v names dim %d; the input's dims are 0 to %d", perm, d, n-1)
		case seen[d]:
			return fmt.Sprintf("the order %v names dim %d twice: give each dim once", perm, d)
		}
		seen[d] = true
	}
	return ""
}

func (o permuteOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	perm := o.order(len(in[0]))
	sigs := make([]Signature, len(perm), len(perm)+4)
	for k, d := range perm {
		sigs[d] = Signature{In: []SBP{S(d)}, Out: S(k)}
	}
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B})
	return append(sigs, partialsThrough()...)
}

// why has nothing to add: every valid SBP of the input has a signature.
func (permuteOp) why(in []tensor.Shape, sbps []SBP) string { return "" }

func (permuteOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o permuteOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	v, err := in[0].Permute(o.order(len(in[0].Shape())))
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}

func init() {
	registerOp(&OpSpec{
		Name: "transpose",
		Grad: gradView,
		Words: []OpWord{{Word: "transpose", Usage: "X", Order: 190,
			Build: func(c *WordCall) (Op, error) {
				if _, err := oneName(c, "transpose takes one name: transpose X (it swaps the last two dims)"); err != nil {
					return nil, err
				}
				return Transpose(), nil
			},
			Spell: func(OpParams) (string, bool) { return "", true },
		}},
		Global: func(_ string, _ OpParams, x []string, _ []tensor.Shape) string { return x[0] + ".transpose(-2, -1)" },
		Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return x[0] + ".transpose(-2, -1).contiguous()"
		},
	})
	registerOp(&OpSpec{
		Name: "permute",
		Grad: gradView,
		Words: []OpWord{intsWord("permute", "X 0,2,1,3", "permute takes a name and an order of its dims: permute X 0,2,1,3 (y's dim k is X's dim order[k])",
			"permute order", 200, Permute, func(p OpParams) []int { return p.Perm })},
		Global: func(_ string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.permute(%s)", x[0], PyTuple(p.Perm))
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s.permute(%s).contiguous()", x[0], PyList(p.Perm))
		},
	})
}

// gradView is a view op's backward (OneFlow's transpose.cpp and
// reshape.cpp): the view that puts dy's elements back where x had them.
//
//	transpose  transpose(dy)                      (its own inverse)
//	permute    permute(dy, inv),  inv[perm[k]] = k
//	reshape    reshape(dy, shape(x))
func gradView(b Backward, c GradCall) (string, error) {
	xs := b.Shape(c.X())
	switch p := Params(c.Op); p.Name {
	case "transpose":
		return b.Add(c.Name, Transpose(), c.Why+": transpose's backward is a transpose", c.Dy)
	case "permute":
		inv := make([]int, len(p.Perm))
		for k, d := range p.Perm {
			inv[d] = k
		}
		return b.Add(c.Name, Permute(inv), c.Why+": permute's backward permutes by the inverse order "+tensor.SpellInts(inv), c.Dy)
	}
	return b.Add(c.Name, Reshape(xs), c.Why+": reshape's backward reshapes back to "+xs.String(), c.Dy)
}
