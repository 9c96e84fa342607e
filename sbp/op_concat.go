package sbp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

type concatOp struct{ n, dim int }

// Concat joins n tensors along one dim (torch.cat, OneFlow's concat): a
// negative dim counts from the end; every other dim agrees. Its
// signatures, every input alike:
//
//	S(a) -> S(a)    every axis a but the joined one: each device joins its
//	                rows of each
//	B    -> B
//	P    -> P       a copy: sum, max and min of the parts alike
//
// A split along the joined dim is not one: the devices' shares of the
// whole are not their shares of each part. OneFlow's list (concat_op.cpp,
// ConcatOp::GetSbp): S(a) -> S(a) for every axis but the joined one, then
// P(sum) -> P(sum).
func Concat(n, dim int) Op { return concatOp{n: n, dim: dim} }

func (concatOp) Name() string     { return "cat" }
func (o concatOp) String() string { return fmt.Sprintf("cat along %d", o.dim) }
func (o concatOp) Arity() int     { return o.n }

// at resolves the dim against a rank (resolveDim).
func (o concatOp) at(rank int) (int, bool) { return resolveDim(o.dim, rank) }

func (o concatOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	d, ok := o.at(len(in[0]))
	if len(in[0]) == 0 || !ok {
		return nil, newError(ErrShape, describe(o, in), "the tensors have %d dims, so the dim is %d to %d (negative counts from the end), not %d", len(in[0]), -len(in[0]), len(in[0])-1, o.dim)
	}
	out := in[0].Clone()
	for _, s := range in[1:] {
		if len(s) != len(out) {
			return nil, newError(ErrShape, describe(o, in), "every tensor joined has %d dims, as the first, not %v", len(out), s)
		}
		for a := range s {
			if a != d && s[a] != out[a] {
				return nil, newError(ErrShape, describe(o, in), "every dim but %d agrees: %v and %v differ at %d", d, in[0], s, a)
			}
		}
		out[d] += s[d]
	}
	return out, nil
}

func (o concatOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := o.oneflow(in)
	for _, s := range []SBP{B, P(tensor.MaxAll), P(tensor.MinAll)} {
		sigs = append(sigs, o.alike(s, s))
	}
	return sigs
}

// alike is the signature of every input laid out s, the output out.
func (o concatOp) alike(s, out SBP) Signature {
	ins := make([]SBP, o.n)
	for i := range ins {
		ins[i] = s
	}
	return Signature{In: ins, Out: out}
}

func (o concatOp) oneflow(in []tensor.Shape) []Signature {
	d, _ := o.at(len(in[0]))
	var sigs []Signature
	for a := range in[0] {
		if a != d {
			sigs = append(sigs, o.alike(S(a), S(a)))
		}
	}
	return append(sigs, o.alike(PSum, PSum))
}

func (o concatOp) why(in []tensor.Shape, sbps []SBP) string {
	d, _ := o.at(len(in[0]))
	for _, s := range sbps {
		if s == S(d) {
			return fmt.Sprintf("a split along the joined dim %d does not stay one: a device's share of the whole is not its shares of the parts", d)
		}
	}
	return "every tensor joined is laid out alike"
}

func (o concatOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local joins the device's parts (never split along the dim).
func (o concatOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	d, _ := o.at(in[0].Layout().Rank())
	return tensor.Concat(d, in...)
}

func init() {
	const usage = "cat takes two names or more and a dim: cat A B -1 (a negative dim counts from the end)"
	registerOp(&OpSpec{
		Name: "cat",
		Grad: gradConcat,
		Words: []OpWord{{Word: "cat", Usage: "A B -1", Order: 207,
			Build: func(c *WordCall) (Op, error) {
				if len(c.Args) < 3 {
					return nil, UsageError(usage)
				}
				d, err := strconv.Atoi(c.Args[len(c.Args)-1])
				if err != nil {
					return nil, usagef("cat's dim %q is not an integer: %s", c.Args[len(c.Args)-1], usage)
				}
				for _, name := range c.Args[:len(c.Args)-1] {
					if _, err := c.Input(name); err != nil {
						return nil, err
					}
				}
				return Concat(len(c.Args)-1, d), nil
			},
			Spell: func(p OpParams) (string, bool) { return " " + strconv.Itoa(p.Axis), true },
		}},
		Global: func(lib string, p OpParams, x []string, _ []tensor.Shape) string {
			return fmt.Sprintf("%s.cat([%s], dim=%d)", lib, strings.Join(x, ", "), p.Axis)
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("torch.cat([%s], dim=%d)", strings.Join(x, ", "), p.Axis)
		},
	})
}

// gradConcat is concat's backward: input j's gradient is dy's elements
// where j landed, a slice. OneFlow writes one split_like for every
// input's (concat.cpp); stridelab's graph has one result a node, so each
// is a slice (its list adds S(d) -> P(sum) to split_like's).
func gradConcat(b Backward, c GradCall) (string, error) {
	o := c.Op.(concatOp)
	x := b.Shape(c.X())
	d, _ := o.at(len(x))
	off := 0
	for _, a := range c.Args[:c.J] {
		off += b.Shape(a)[d]
	}
	return b.Add(c.Name, Slice(d, off, off+x[d]), fmt.Sprintf("%s = grad's elements %d … %d along %d, where %s landed (a slice)", c.Why, off, off+x[d]-1, d, c.X()), c.Dy)
}
