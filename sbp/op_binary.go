package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type binaryOp struct{ op tensor.BinaryOp }

// Binary is a broadcast elementwise op (add, sub, mul, div, max, min, eq)
// on two global tensors. For every output dim d, with "has" meaning the
// operand's aligned axis has the output's size there:
//
//	S(i) x S(j) -> S(d)   both have d
//	S(i) x B    -> S(d)   a has d, b broadcasts along it (size 1 or no axis)
//	B    x S(j) -> S(d)   b has d, a broadcasts along it
//	B    x B    -> B
//
// and the partials each op is linear or idempotent in:
//
//	add, sub:   P(sum) x P(sum) -> P(sum)
//	mul:        P(sum) x B -> P(sum),  B x P(sum) -> P(sum)
//	max (min):  P(max) x P(max), P(max) x B, B x P(max) -> P(max)
//
// Div has no partial signature: (a₁+a₂)/b is a₁/b + a₂/b only in exact
// arithmetic, and integer division truncates each part. Nor has eq: it
// compares whole values, and no part of a partial knows whether the whole
// is equal (eq(a₁+a₂, b) is not eq(a₁, b) + eq(a₂, b)), so only its
// S and B signatures exist.
func Binary(op tensor.BinaryOp) Op { return binaryOp{op: op} }

func (o binaryOp) Name() string   { return o.op.String() }
func (o binaryOp) String() string { return o.op.String() }
func (binaryOp) Arity() int       { return 2 }

func (o binaryOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if _, err := tensor.ParseBinaryOp(o.op.String()); err != nil {
		return nil, err
	}
	return tensor.BroadcastShapes(in[0], in[1])
}

func (o binaryOp) Signatures(in []tensor.Shape) []Signature {
	out, err := o.OutShape(in)
	if err != nil {
		return nil
	}
	la, lb := len(out)-len(in[0]), len(out)-len(in[1])
	var sigs []Signature
	for d := range out {
		ha, hb := kept(in[0], out, d), kept(in[1], out, d)
		switch {
		case ha && hb:
			sigs = append(sigs, Signature{In: []SBP{S(d - la), S(d - lb)}, Out: S(d)})
		case ha:
			sigs = append(sigs, Signature{In: []SBP{S(d - la), B}, Out: S(d)})
		case hb:
			sigs = append(sigs, Signature{In: []SBP{B, S(d - lb)}, Out: S(d)})
		}
	}
	sigs = append(sigs, Signature{In: []SBP{B, B}, Out: B})
	sum, mx, mn := P(tensor.Sum), P(tensor.MaxAll), P(tensor.MinAll)
	switch o.op {
	case tensor.Add, tensor.Sub:
		sigs = append(sigs, Signature{In: []SBP{sum, sum}, Out: sum})
	case tensor.Mul:
		sigs = append(sigs, Signature{In: []SBP{sum, B}, Out: sum}, Signature{In: []SBP{B, sum}, Out: sum})
	case tensor.Max:
		sigs = append(sigs, Signature{In: []SBP{mx, mx}, Out: mx}, Signature{In: []SBP{mx, B}, Out: mx}, Signature{In: []SBP{B, mx}, Out: mx})
	case tensor.Min:
		sigs = append(sigs, Signature{In: []SBP{mn, mn}, Out: mn}, Signature{In: []SBP{mn, B}, Out: mn}, Signature{In: []SBP{B, mn}, Out: mn})
	}
	return sigs
}

func (o binaryOp) why(in []tensor.Shape, sbps []SBP) string {
	out, err := o.OutShape(in)
	if err != nil {
		return ""
	}
	names := []string{"a", "b"}
	for i, s := range sbps {
		if s.Kind == Split {
			d := s.Axis + len(out) - len(in[i])
			if in[i][s.Axis] != out[d] {
				return fmt.Sprintf("%s's axis %d has size %d and broadcasts to %d; a split axis is never broadcast", names[i], s.Axis, in[i][s.Axis], out[d])
			}
		}
	}
	a, b := sbps[0], sbps[1]
	switch {
	case a.Kind == Split && b.Kind == Split:
		return fmt.Sprintf("a split along output dim %d and b along output dim %d would leave each device with pieces of different elements", a.Axis+len(out)-len(in[0]), b.Axis+len(out)-len(in[1]))
	case (a.Kind == Partial || b.Kind == Partial) && o.op == tensor.Eq:
		return "eq compares whole values, and no part of a partial knows whether the whole is equal; eq has no partial signature"
	case a.Kind == Partial || b.Kind == Partial:
		return fmt.Sprintf("%v(Σ parts) is not Σ %v(parts) for these inputs: %v is not linear (or idempotent) in a partial of this kind", o.op, o.op, o.op)
	}
	return ""
}

func (o binaryOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o binaryOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return be.Binary(o.op, in[0], in[1])
}

// The elementwise binary ops' specs: one kind each, a word of the
// language (NAME = add A B). eq (1 where a = b, else 0) has no gradient
// (a comparison's result is a constant to the backward, as torch's
// bool tensors are): max's and min's gradients pick by it, and an
// imported model's one-hot rows are made by it.
func init() {
	global := map[tensor.BinaryOp]string{tensor.Add: "%[2]s + %[3]s", tensor.Sub: "%[2]s - %[3]s", tensor.Mul: "%[2]s * %[3]s", tensor.Div: "%[2]s / %[3]s",
		tensor.Max: "%[1]s.maximum(%[2]s, %[3]s)", tensor.Min: "%[1]s.minimum(%[2]s, %[3]s)",
		tensor.Eq: "%[1]s.eq(%[2]s, %[3]s).to(%[2]s.dtype)"} // eq: a bool tensor, brought back to the operands' dtype
	local := map[tensor.BinaryOp]string{tensor.Add: "%s + %s", tensor.Sub: "%s - %s", tensor.Mul: "%s * %s", tensor.Div: "%s / %s",
		tensor.Max: "torch.maximum(%s, %s)", tensor.Min: "torch.minimum(%s, %s)", tensor.Eq: "(%s == %s).to(F32)"}
	order := map[tensor.BinaryOp]int{tensor.Add: 20, tensor.Sub: 30, tensor.Mul: 40, tensor.Div: 50, tensor.Max: 60, tensor.Min: 70, tensor.Eq: 75}
	for _, op := range []tensor.BinaryOp{tensor.Add, tensor.Sub, tensor.Mul, tensor.Div, tensor.Max, tensor.Min, tensor.Eq} {
		spec := &OpSpec{
			Name: op.String(),
			Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
				return fmt.Sprintf(global[op], lib, x[0], x[1])
			},
			Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
				return fmt.Sprintf(local[op], x[0], x[1])
			},
		}
		if op != tensor.Eq {
			spec.Grad = gradBinary
		}
		spec.Words = []OpWord{{Word: op.String(), Usage: "A B", Order: order[op],
			Build: func(c *WordCall) (Op, error) {
				if _, err := twoNames(c); err != nil {
					return nil, err
				}
				return Binary(op), nil
			},
			Spell: func(OpParams) (string, bool) { return "", true },
		}}
		registerOp(spec)
	}
}

// gradBinary is a broadcast binary op's backward as OneFlow writes it
// (broadcast_binary_ops.cpp), each gradient summed to its operand's shape
// where the operand broadcast (BroadcastReduceSumLike: reduce_sum_like):
//
//	add  da = dy,            db = dy
//	sub  da = dy,            db = scalar_mul(dy, −1)
//	mul  da = dy · b,        db = dy · a
//	div  da = dy / b,        db = −dy · y / b      (OneFlow: broadcast_div_grad)
//	max, min: dy where the operand was picked, split evenly at ties
//	     (torch's convention; OneFlow's elementwise_max_grad gives a tie to
//	     one operand)
func gradBinary(b Backward, c GradCall) (string, error) {
	x, other := c.X(), c.Other()
	whole := func(op Op, why string, args ...string) (string, error) {
		return opThenSumLike(b, c.Name, x, op, why, args...)
	}
	switch op := Params(c.Op).Binary; op {
	case tensor.Add:
		return reduceSumLike(b, c.Name, c.Dy, x, c.Why+" = grad")
	case tensor.Sub:
		if c.J == 0 {
			return reduceSumLike(b, c.Name, c.Dy, x, c.Why+" = grad")
		}
		return whole(Scale(-1), c.Why+" = -grad (scalar_mul by -1)", c.Dy)
	case tensor.Mul:
		return whole(Binary(tensor.Mul), c.Why+" = grad · "+other, c.Dy, other)
	case tensor.Div:
		den := c.Args[1]
		if c.J == 0 {
			return whole(Binary(tensor.Div), c.Why+" = grad / "+den, c.Dy, den)
		}
		why := c.Why + " = -grad · " + c.Out + " / " + den
		p, err := b.Add("", Binary(tensor.Mul), why, c.Dy, c.Out)
		if err != nil {
			return "", err
		}
		q, err := b.Add("", Binary(tensor.Div), why, p, den)
		if err != nil {
			return "", err
		}
		s, err := reduceSumLike(b, "", q, x, why)
		if err != nil {
			return "", err
		}
		return b.Add(c.Name, Scale(-1), why, s)
	case tensor.Max, tensor.Min:
		return gradPick(b, c)
	}
	return "", fmt.Errorf("no gradient rule for %s", c.Op.Name())
}

// gradPick is the gradient of an elementwise max or min: the gradient
// goes to the operand that was picked, split evenly where both were:
//
//	m = eq(x, y);  n = eq(a, y) + eq(b, y);  dx = reduce_sum_like(dy · m / n, x)
func gradPick(b Backward, c GradCall) (string, error) {
	mask := func(x string) (string, error) {
		return b.Once(c.Out+"=="+x, Binary(tensor.Eq), "where "+c.Out+" picked "+x, x, c.Out)
	}
	ma, err := mask(c.Args[0])
	if err != nil {
		return "", err
	}
	mb, err := mask(c.Args[1])
	if err != nil {
		return "", err
	}
	count, err := b.Once(c.Out+".picks", Binary(tensor.Add), "how many operands "+c.Out+" picked (2 at a tie: the gradient is split)", ma, mb)
	if err != nil {
		return "", err
	}
	m := []string{ma, mb}[c.J]
	p, err := b.Add("", Binary(tensor.Mul), c.Why+" = grad where "+c.X()+" was picked", c.Dy, m)
	if err != nil {
		return "", err
	}
	q, err := b.Add("", Binary(tensor.Div), c.Why+", split at ties", p, count)
	if err != nil {
		return "", err
	}
	return reduceSumLike(b, c.Name, q, c.X(), c.Why)
}
