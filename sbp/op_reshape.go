package sbp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// reshapeOp views a tensor's elements, in row-major order, as another
// shape. shape is the target as given: one entry may be -1.
type reshapeOp struct{ shape []int }

// Reshape gives a global tensor a new shape with the same elements in
// row-major order, as torch's x.reshape(shape) and NumPy's reshape; one
// entry of shape may be -1 and is inferred:
//
//	flat(y) = flat(x),  flat(t)[Σ_d i_d·Π_{e>d} shape(t)_e] = t[i]
//
// Its signatures follow PyTorch DTensor's view rules
// (torch/distributed/tensor/_ops/_view_ops.py, view_groups and
// propagate_shape_and_sharding): the reshape is cut into groups of input
// dims that flatten to the same elements as groups of output dims
// (viewGroups), and per group with dims on both sides, in input order,
//
//	S(In[0]) -> S(Out[0])  a split of the group's first input dim is a
//	                       split of its first output dim: a device's
//	                       rows of the group are a run of its elements
//	B        -> B
//	P(op)    -> P(op)      a reshape moves no values, so it commutes with
//	                       sum, max and min
//
// A split of any other dim has no signature (the op's why says which
// group and why a device's part would be strided through the output),
// so a planner boxes it first. A split signature holds on a placement
// only where every device's run of the input is its balanced part of
// the output (PlacementFault): on n devices [7 3] -> [21] does not (its
// rows 4 + 3 are 12 + 9 elements, the output's parts 11 + 10), [8 3] ->
// [24] does; [6] -> [3 2] splits only where 3 divides.
//
// Each device reshapes its shard to its output shard's shape (a view of
// the shard, or of a copy where the layout allows none) and copies it
// into a buffer of its own: Tensor.Release recycles a buffer and the
// runner releases every value, so an output never shares its input's
// buffer.
func Reshape(shape []int) Op { return reshapeOp{shape: slices.Clone(shape)} }

func (reshapeOp) Name() string     { return "reshape" }
func (o reshapeOp) String() string { return fmt.Sprintf("reshape to %v", o.shape) }
func (reshapeOp) Arity() int       { return 1 }

func (o reshapeOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	l, err := tensor.Contiguous(in[0])
	if err == nil {
		if l, err = l.Reshape(o.shape); err == nil {
			return l.Shape(), nil
		}
	}
	var te *tensor.Error
	if errors.As(err, &te) {
		return nil, newError(ErrShape, describe(o, in), "%s", te.Detail)
	}
	return nil, newError(ErrShape, describe(o, in), "%v", err)
}

// groups returns the output shape and the reshape's view groups.
func (o reshapeOp) groups(in []tensor.Shape) (tensor.Shape, []viewGroup, error) {
	out, err := o.OutShape(in)
	if err != nil {
		return nil, nil, err
	}
	return out, viewGroups(in[0], out), nil
}

func (o reshapeOp) Signatures(in []tensor.Shape) []Signature {
	_, groups, err := o.groups(in)
	if err != nil {
		return nil
	}
	var sigs []Signature
	for _, g := range groups {
		if len(g.In) > 0 && len(g.Out) > 0 {
			sigs = append(sigs, Signature{In: []SBP{S(g.In[0])}, Out: S(g.Out[0])})
		}
	}
	sigs = append(sigs, Signature{In: []SBP{B}, Out: B})
	return append(sigs, partialsThrough()...)
}

// why names the group of a split dim that is not its group's first.
func (o reshapeOp) why(in []tensor.Shape, sbps []SBP) string {
	out, groups, err := o.groups(in)
	if err != nil || sbps[0].Kind != Split {
		return ""
	}
	a := sbps[0].Axis
	for _, g := range groups {
		if !slices.Contains(g.In, a) {
			continue
		}
		if len(g.Out) == 0 {
			return fmt.Sprintf("dim %d has size 1 and the reshape drops it, so the output has no dim to split", a)
		}
		return fmt.Sprintf("dim %d is flattened after dim %d (input dims %v are output dims %v of %v): a device's part of dim %d is strided through the output, not a block of it; only the first dim of a group keeps its split", a, g.In[0], g.In, g.Out, out, a)
	}
	return ""
}

// onPlacement checks, for every device and every group, that the run of
// the group's elements the device holds of the input is the run it
// holds of the output: a split signature maps a device's input part to
// its output part only where the balanced splits of both sides agree.
func (o reshapeOp) onPlacement(shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) string {
	split := func(nd NdSbp) bool {
		return slices.ContainsFunc(nd, func(s SBP) bool { return s.Kind == Split })
	}
	if !split(in[0]) && !split(out) {
		return ""
	}
	y, groups, err := o.groups(shapes)
	if err != nil {
		return ""
	}
	xs, err := Shards(shapes[0], p, in[0])
	if err != nil {
		return ""
	}
	ys, err := Shards(y, p, out)
	if err != nil {
		return ""
	}
	for r := range xs {
		for _, g := range groups {
			a, b, ok := flatRange(shapes[0], g.In, xs[r].Lo, xs[r].Hi)
			c, d, ok2 := flatRange(y, g.Out, ys[r].Lo, ys[r].Hi)
			if ok && ok2 && a == c && b == d {
				continue
			}
			where := fmt.Sprintf("input dims %v of %v are output dims %v of %v", g.In, shapes[0], g.Out, y)
			if !ok || !ok2 {
				return fmt.Sprintf("%s, and device %d's part of them is not one run of their elements", where, r)
			}
			return fmt.Sprintf("%s; device %d holds their elements [%d, %d) of the input but its part of the output is [%d, %d): the balanced splits of input dim %d (size %d) and output dim %d (size %d) over this mesh cut the elements at different places (they agree where the sizes divide evenly)", where, r, a, b, c, d, g.In[0], shapes[0][g.In[0]], g.Out[0], y[g.Out[0]])
		}
	}
	return ""
}

func (reshapeOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

func (o reshapeOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	v, err := in[0].Reshape(out)
	if errors.Is(err, tensor.ErrNeedsCopy) {
		// no view of this layout has the new shape: the copy is the
		// output's own buffer, reshaped in place
		c, err := be.Materialize(in[0])
		if err != nil {
			return tensor.Tensor{}, err
		}
		return c.Reshape(out)
	}
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}

func init() {
	registerOp(&OpSpec{
		Name: "reshape",
		Grad: gradView,
		Words: []OpWord{intsWord("reshape", "X 8,4,16", "reshape takes a name and a shape: reshape X 8,4,16 (one size may be -1)",
			"reshape shape", 210, Reshape, func(p OpParams) []int { return p.Shape })},
		// the logical shape, -1 resolved
		Global: func(_ string, p OpParams, x []string, in []tensor.Shape) string {
			out, _ := Reshape(p.Shape).OutShape(in)
			return x[0] + ".reshape" + shapeArgs(out)
		},
		// each rank to its own output shard's shape (the rewrite's)
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("%s.reshape(%s).clone()", x[0], each(func(r RankPlan) []int { return r.OutShape }))
		},
	})
}
