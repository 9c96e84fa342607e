package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type meanOp struct {
	sum reduceOp     // the sum to the target
	in  tensor.Shape // the logical input shape, which fixes the count
}

// Mean averages a global tensor of shape in down to the
// broadcast-compatible shape to: Reduce(Sum, to), divided by the count of
// input elements each output averages (the product of in's reduced
// dims). Its signatures are sum's:
//
//	S(a)   -> S(a')     a kept axis stays split
//	S(a)   -> P(sum)    a reduced axis: each device sums its part and
//	                    divides by the logical count, so the parts add up to
//	                    the mean
//	B      -> B
//	P(sum) -> P(sum)    the mean is linear
//
// Every device divides by the logical count, whatever its shard holds;
// that is why the op carries in. A mean over no elements is NaN (0/0),
// as NumPy's and torch's are. Like torch's it takes float32 only: an
// integer mean would truncate each part.
func Mean(in, to tensor.Shape) Op {
	return meanOp{sum: reduceOp{op: tensor.Sum, to: to.Clone()}, in: in.Clone()}
}

func (meanOp) Name() string     { return "mean" }
func (o meanOp) String() string { return fmt.Sprintf("mean to %v", o.sum.to) }
func (meanOp) Arity() int       { return 1 }

func (o meanOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if !in[0].Equal(o.in) {
		return nil, newError(ErrShape, describe(o, in), "this mean averages a tensor of shape %v, not %v", o.in, in[0])
	}
	return o.sum.OutShape(in)
}

// count is the number of input elements each output averages.
func (o meanOp) count() int {
	reduced, err := tensor.ReducedAxes(o.in, o.sum.to)
	if err != nil {
		return 0
	}
	n := 1
	for d, r := range reduced {
		if r {
			n *= o.in[d]
		}
	}
	return n
}

func (o meanOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	return o.sum.Signatures(in)
}

func (o meanOp) why(in []tensor.Shape, sbps []SBP) string {
	if s := sbps[0]; s.Kind == Partial && s.Op != tensor.Sum {
		return fmt.Sprintf("the mean of a %v is not the %v of each part's mean", s, s.Op)
	}
	return ""
}

func (o meanOp) Args(in []tensor.Shape, out tensor.Shape) Args { return o.sum.Args(in, out) }

func (o meanOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	if dt := in[0].DType(); dt != tensor.Float32 {
		return tensor.Tensor{}, newError(tensor.ErrDType, describe(o, []tensor.Shape{o.in}), "mean takes float32 tensors, not %v: an integer mean would truncate each device's part", dt)
	}
	s, err := o.sum.Local(be, in, out)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer s.Release()
	n, err := filled(tensor.Float32, tensor.Shape{}, float64(o.count())) // rank 0: broadcasts to any shape
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer n.Release()
	return be.Binary(tensor.Div, s, n)
}

// oneflow is OneFlow's list: its mean is reduce_sum followed by
// scalar_mul by 1/count (ReduceMeanFunctor, oneflow/core/functional/impl/
// math_functor.cpp), and scalar_mul keeps whatever SBP the sum gives, so
// the list is reduce_sum's.
func (o meanOp) oneflow(in []tensor.Shape) []Signature { return o.sum.oneflow(in) }

func init() {
	registerOp(&OpSpec{
		Name: "mean",
		Grad: gradMean,
		Words: []OpWord{{Word: "mean", Usage: "X 1,3,1", Order: 230,
			Build: func(c *WordCall) (Op, error) {
				x, to, err := nameAndShape(c)
				if err != nil {
					return nil, err
				}
				return Mean(x, to), nil
			},
			Spell: func(p OpParams) (string, bool) { return " " + p.To.Spell(), true },
		}},
		Global: func(_ string, p OpParams, x []string, in []tensor.Shape) string {
			return reduceCall(x[0], "mean", in[0], p.To)
		},
		Local: func(p OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("mean_to(%s, %s, %d)", x[0], each(func(r RankPlan) []int { return r.ReduceTo }), p.Count)
		},
	})
}

// gradMean is mean's backward as OneFlow writes it: its mean is a
// reduce_sum then a scalar_mul by 1/count (ReduceMeanFunctor), so the
// backward is scalar_mul's (the same scalar_mul of dy, on the smaller
// tensor) then reduce_sum's broadcast_like.
func gradMean(b Backward, c GradCall) (string, error) {
	n := Params(c.Op).Count
	f := 0.0 // a mean over nothing: x has no elements to take a gradient
	if n > 0 {
		f = 1 / float64(n)
	}
	q, err := b.Add("", Scale(f), fmt.Sprintf("%s: mean's backward divides grad by the %d elements each output averages (scalar_mul)", c.Why, n), c.Dy)
	if err != nil {
		return "", err
	}
	return b.Add(c.Name, BroadcastLike(b.Shape(c.X())), c.Why+": then broadcasts it back like "+c.X()+" (broadcast_like)", q, c.X())
}
