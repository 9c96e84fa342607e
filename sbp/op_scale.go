package sbp

import (
	"fmt"
	"math"
	"strconv"

	"github.com/stridelab/stridelab/tensor"
)

type scaleOp struct{ c float64 }

// Scale multiplies a global tensor by the constant c: y = c·x elementwise,
// in x's dtype. Its signatures:
//
//	S(k)   -> S(k)     for every axis k
//	B      -> B
//	P(sum) -> P(sum)   c·(x₁+x₂) = c·x₁ + c·x₂
//	P(max) -> P(max),  P(min) -> P(min)   for c > 0: scaling keeps order
//	P(max) -> P(min),  P(min) -> P(max)   for c < 0: scaling reverses it
//
// A scale by 0 passes no partial max or min: the parts that hold max's
// identity, -Inf, would become NaN. A c that rounds to 0 in float32 counts
// as 0.
//
// Each device multiplies its shard by a rank-0 tensor holding c
// (tensor.Mul), so it runs on any backend. An integer tensor scales only
// by a whole c its dtype holds (a uint32 one only by c >= 0). Where c·x
// would not fit the dtype, x is first clamped to the range where it does,
// so y stays ordered like x (reversed for c < 0) and a partial max or min
// that holds its identity stays exact: scaling int32's lowest value by -1
// gives its highest, not the wrapped lowest.
func Scale(c float64) Op { return scaleOp{c: c} }

func (scaleOp) Name() string     { return "scale" }
func (o scaleOp) String() string { return fmt.Sprintf("scale by %v", o.c) }
func (scaleOp) Arity() int       { return 1 }

func (o scaleOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if math.IsNaN(o.c) || math.Abs(o.c) > math.MaxFloat32 {
		return nil, newError(ErrParse, describe(o, in), "the factor must be a finite float32, not %v", o.c)
	}
	return in[0].Clone(), nil
}

// sign is the sign of c as the kernels see it: float32(c) for a float
// tensor (and a whole c for an integer one, which is 0 only when c is).
func (o scaleOp) sign() int {
	switch c := float32(o.c); {
	case c > 0:
		return 1
	case c < 0:
		return -1
	}
	return 0
}

func (o scaleOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	var sigs []Signature
	for k := range in[0] {
		sigs = append(sigs, Signature{In: []SBP{S(k)}, Out: S(k)})
	}
	sum, mx, mn := P(tensor.Sum), P(tensor.MaxAll), P(tensor.MinAll)
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B}, Signature{In: []SBP{sum}, Out: sum})
	switch o.sign() {
	case 1:
		sigs = append(sigs, Signature{In: []SBP{mx}, Out: mx}, Signature{In: []SBP{mn}, Out: mn})
	case -1:
		sigs = append(sigs, Signature{In: []SBP{mx}, Out: mn}, Signature{In: []SBP{mn}, Out: mx})
	}
	return sigs
}

func (o scaleOp) why(in []tensor.Shape, sbps []SBP) string {
	if s := sbps[0]; s.Kind == Partial && s.Op != tensor.Sum && o.sign() == 0 {
		return fmt.Sprintf("a scale by 0 would turn the parts of a %v that hold its identity (±Inf) into NaN; only P(sum) passes through it", s)
	}
	return ""
}

func (o scaleOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o scaleOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	x := in[0]
	lo, hi, clamp, err := o.bounds(x.DType(), x.Shape())
	if err != nil {
		return tensor.Tensor{}, err
	}
	owned := false // x is a clamp's result, not the input
	apply := func(op tensor.BinaryOp, v float64) error {
		k, err := filled(x.DType(), tensor.Shape{}, v) // rank 0: broadcasts to any shape, a rank-0 x included
		if err != nil {
			return err
		}
		y, err := be.Binary(op, x, k)
		k.Release()
		if owned {
			x.Release()
		}
		x, owned = y, err == nil
		return err
	}
	if clamp[0] {
		err = apply(tensor.Max, lo)
	}
	if clamp[1] && err == nil {
		err = apply(tensor.Min, hi)
	}
	if err == nil {
		err = apply(tensor.Mul, o.c)
	}
	if err != nil {
		return tensor.Tensor{}, err
	}
	return x, nil
}

// bounds validates c for dtype dt and returns the range [lo, hi] of x
// where c·x fits dt, and which of its ends cut dt's own range (so x must
// be clamped to them first). A float tensor is never clamped: float32
// products round monotonically and overflow to ±Inf.
func (o scaleOp) bounds(dt tensor.DType, shape tensor.Shape) (lo, hi float64, clamp [2]bool, err error) {
	if dt == tensor.Float32 {
		return 0, 0, clamp, nil
	}
	name := describe(o, []tensor.Shape{shape})
	var min, max int64 = math.MinInt32, math.MaxInt32
	if dt == tensor.Uint32 {
		min, max = 0, math.MaxUint32
	}
	if o.c != math.Trunc(o.c) || o.c < float64(min) || o.c > float64(max) {
		return 0, 0, clamp, newError(ErrParse, name, "%v tensors scale only by a whole number from %d to %d, not %v", dt, min, max, o.c)
	}
	c := int64(o.c)
	switch {
	case c > 0:
		lo, hi := ceilDiv(min, c), floorDiv(max, c)
		return float64(lo), float64(hi), [2]bool{lo > min, hi < max}, nil
	case c < 0:
		lo, hi := ceilDiv(max, c), floorDiv(min, c)
		return float64(lo), float64(hi), [2]bool{lo > min, hi < max}, nil
	}
	return 0, 0, clamp, nil
}

// floorDiv is ⌊a/b⌋ and ceilDiv ⌈a/b⌉ for b != 0 (Go's / truncates).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

func init() {
	const usage = "scale takes a name and a number: scale X 0.5"
	registerOp(&OpSpec{
		Name: "scale",
		Grad: gradScale,
		Words: []OpWord{{Word: "scale", Usage: "X 0.5", Order: 160,
			Build: func(c *WordCall) (Op, error) {
				if len(c.Args) != 2 {
					return nil, UsageError(usage)
				}
				f, err := strconv.ParseFloat(c.Args[1], 64)
				if err != nil {
					return nil, usagef("scale's factor %q is not a number: scale X 0.5", c.Args[1])
				}
				if _, err := c.Input(c.Args[0]); err != nil {
					return nil, err
				}
				return Scale(f), nil
			},
			Spell: func(p OpParams) (string, bool) { return " " + strconv.FormatFloat(p.Factor, 'g', -1, 64), true },
		}},
		Global: func(_ string, p OpParams, x []string, _ []tensor.Shape) string {
			c := strconv.FormatFloat(p.Factor, 'g', -1, 64)
			if p.Factor == math.Trunc(p.Factor) && math.Abs(p.Factor) < 1<<53 { // an int literal keeps an int tensor's dtype
				c = strconv.FormatFloat(p.Factor, 'f', -1, 64)
			}
			return fmt.Sprintf("%s * %s", x[0], c)
		},
		Local: func(p OpParams, x []string, _ func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s * torch.tensor(%s, dtype=F32, device=DEV)", x[0], strconv.FormatFloat(p.Factor, 'g', -1, 64))
		},
	})
}

// gradScale is scalar_mul's backward (scalar_mul.cpp): the same
// scalar_mul of dy.
func gradScale(b Backward, c GradCall) (string, error) {
	f := Params(c.Op).Factor
	return b.Add(c.Name, Scale(f), fmt.Sprintf("%s = grad · %g", c.Why, f), c.Dy)
}
