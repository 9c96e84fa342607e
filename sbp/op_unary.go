package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type unaryOp struct{ op tensor.UnaryOp }

// Unary is an elementwise op of one global tensor (tensor.Backend.Unary):
// exp, log, neg, sqrt, rsqrt, tanh, relu, erf, square, and step (relu's
// derivative, the mask of its backward). Each element is computed on its
// own, so
//
//	S(k)   -> S(k)     for every axis k
//	B      -> B
//
// and the partials an op is linear or monotone in:
//
//	neg:                   P(sum) -> P(sum)   −(x₁+x₂) = −x₁ + −x₂ (int32 too, wrapping)
//	exp, tanh, relu, step, erf: P(max) -> P(max), P(min) -> P(min)
//	                       f(max parts) = max f(parts) for f non-decreasing
//	                       on all of [−Inf, Inf] (and on every integer)
//
// No other op is linear, so only neg passes P(sum). Neg passes no
// partial max or min: it would turn int32's lowest value, a P(max)
// part's identity, into itself (it wraps), not P(min)'s identity. Log, sqrt and
// rsqrt pass none either: a part of a P(max) may hold any value below
// the whole (−Inf where it holds nothing), and below 0 they are NaN;
// nor does square, which is not monotone ((−3)² > 2²). An
// op refuses the dtypes it does not take (tensor.UnaryOp.Takes) on the
// devices, as the backend does.
func Unary(op tensor.UnaryOp) Op { return unaryOp{op: op} }

func (o unaryOp) Name() string   { return o.op.String() }
func (o unaryOp) String() string { return o.op.String() }
func (unaryOp) Arity() int       { return 1 }

func (o unaryOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if _, err := tensor.ParseUnaryOp(o.op.String()); err != nil {
		return nil, err
	}
	return in[0].Clone(), nil
}

// monotone reports whether the op is non-decreasing on all of [−Inf, Inf].
func (o unaryOp) monotone() bool {
	switch o.op {
	case tensor.Exp, tensor.Tanh, tensor.Relu, tensor.Step, tensor.Erf:
		return true
	}
	return false
}

func (o unaryOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	var sigs []Signature
	for k := range in[0] {
		sigs = append(sigs, Signature{In: []SBP{S(k)}, Out: S(k)})
	}
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B})
	switch {
	case o.op == tensor.Neg:
		sigs = append(sigs, Signature{In: []SBP{PSum}, Out: PSum})
	case o.monotone():
		mx, mn := P(tensor.MaxAll), P(tensor.MinAll)
		sigs = append(sigs, Signature{In: []SBP{mx}, Out: mx}, Signature{In: []SBP{mn}, Out: mn})
	}
	return sigs
}

func (o unaryOp) why(in []tensor.Shape, sbps []SBP) string {
	s := sbps[0]
	switch {
	case s.Kind != Partial:
		return ""
	case s.Op == tensor.Sum:
		return fmt.Sprintf("%v(x₁ + x₂) is not %v(x₁) + %v(x₂): %v is not linear, and only neg passes P(sum)", o.op, o.op, o.op, o.op)
	case o.op == tensor.Neg:
		return fmt.Sprintf("neg does not carry the int32 identity a part of a %v may hold to the other partial's: −(lowest) wraps to the lowest, not the highest, and −(highest) is the lowest + 1; only P(sum) passes through neg", s)
	}
	if o.op == tensor.Square {
		return fmt.Sprintf("square is not monotone ((−3)² > 2²), and a part of a %v may hold any value past the whole (±Inf where it holds nothing); only S and B pass through square", s)
	}
	return fmt.Sprintf("%v is NaN below 0, and a part of a %v may hold any value past the whole (±Inf where it holds nothing); only S and B pass through %v", o.op, s, o.op)
}

func (o unaryOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o unaryOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	return be.Unary(o.op, in[0])
}

// oneflow is OneFlow's list: every unary math op's GetSbp (exp, log, sqrt,
// rsqrt, erf, square and negative in math_unary_elementwise_op.cpp, tanh in
// tanh_op.cpp) is GetSbpFnUtil::SplitForEachAxis, and relu's
// (relu_op.cpp) the same loop written out: S(k) -> S(k) for every axis,
// and nothing partial, not even negative's P -> P.
func (o unaryOp) oneflow(in []tensor.Shape) []Signature {
	var sigs []Signature
	for k := range in[0] {
		sigs = append(sigs, Signature{In: []SBP{S(k)}, Out: S(k)})
	}
	return sigs
}

// The elementwise unary ops' specs: exp … relu words of the language
// (NAME = exp X), step only the backward's (relu's derivative).
func init() {
	order := map[tensor.UnaryOp]int{tensor.Exp: 80, tensor.Log: 90, tensor.Neg: 100, tensor.Sqrt: 110, tensor.Rsqrt: 120, tensor.Tanh: 130, tensor.Relu: 140, tensor.Erf: 142, tensor.Square: 144}
	for _, op := range tensor.UnaryOps() {
		spec := &OpSpec{
			Name: op.String(),
			Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
				switch op {
				case tensor.Neg:
					return "-" + x[0]
				case tensor.Step: // a bool tensor, brought back to x's dtype
					return fmt.Sprintf("(%s > 0).to(%s.dtype)", x[0], x[0])
				}
				return fmt.Sprintf("%s.%v(%s)", lib, op, x[0])
			},
			Local: func(_ OpParams, x []string, _ func(func(RankPlan) []int) string) string {
				return fmt.Sprintf("UNARY[%q](%s)", op.String(), x[0])
			},
		}
		if op != tensor.Step {
			spec.Words = []OpWord{{Word: op.String(), Usage: "X", Order: order[op],
				Build: func(c *WordCall) (Op, error) {
					if _, err := oneName(c, fmt.Sprintf("%s takes one name: %s X", c.Word, c.Word)); err != nil {
						return nil, err
					}
					return Unary(op), nil
				},
				Spell: func(OpParams) (string, bool) { return "", true },
			}}
		}
		spec.Grad = gradUnary
		registerOp(spec)
	}
}

// gradUnary is a unary op's backward as OneFlow writes it
// (math_unary_op.cpp, activation.cpp): neg's is negative(dy); each other
// op's is its *_grad op (UnaryGrad) of x and dy, or of y and dy for tanh
// and relu.
func gradUnary(b Backward, c GradCall) (string, error) {
	op := Params(c.Op).Unary
	switch op {
	case tensor.Neg:
		return b.Add(c.Name, Unary(tensor.Neg), c.Why+" = -grad (negative)", c.Dy)
	case tensor.Step:
		return "", fmt.Errorf("no gradient rule for %s", c.Op.Name())
	}
	g := UnaryGrad(op)
	v := c.X()
	if g.(unaryGradOp).fromY() {
		v = c.Out
	}
	formula := map[tensor.UnaryOp]string{tensor.Exp: "grad · exp(%s)", tensor.Log: "grad / %s", tensor.Sqrt: "grad / (2·sqrt(%s))",
		tensor.Rsqrt: "-grad · rsqrt(%s)³ / 2", tensor.Tanh: "grad · (1 - %s²)", tensor.Relu: "grad where %s > 0",
		tensor.Erf: "grad · 2/√π · exp(-%s²)", tensor.Square: "grad · 2·%s"}[op]
	return b.Add(c.Name, g, fmt.Sprintf("%s = "+formula+" (%s)", c.Why, v, g.Name()), v, c.Dy)
}
