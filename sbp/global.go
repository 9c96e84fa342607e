package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// Global is a global (consistent) tensor: one logical tensor of a shape,
// laid out on a placement by an nd-SBP, whose devices each hold their
// shard in a buffer of their own. Every device runs its kernels on the
// backend the tensor was given; a simulated cluster of n devices is n
// buffers and n kernel calls.
//
// A Global is immutable: Box and Apply return new ones.
type Global struct {
	shape     tensor.Shape
	dtype     tensor.DType
	placement Placement
	nd        NdSbp
	shards    []Shard
	locals    []tensor.Tensor
	be        tensor.Backend
}

// Scatter lays the full tensor out on p by nd, each device's shard in a
// new buffer made on be: a split device copies its range; under P the
// first device of every P group keeps the value and the others hold the
// identity (0 for sum), as OneFlow's B -> P does.
func Scatter(be tensor.Backend, full tensor.Tensor, p Placement, nd NdSbp) (*Global, error) {
	if !full.Valid() {
		return nil, newError(ErrShape, "scatter", "the tensor is an empty Tensor value")
	}
	shards, err := Shards(full.Shape(), p, nd)
	if err != nil {
		return nil, err
	}
	if err := checkFootprint("scatter", full.Shape(), full.DType(), p, nd); err != nil {
		return nil, err
	}
	g := &Global{shape: full.Shape(), dtype: full.DType(), placement: p, nd: nd.Clone(), shards: shards, be: be}
	part, _ := partialOf(nd)
	for _, sh := range shards {
		var local tensor.Tensor
		if sh.Partial && !keeper(nd, sh.Coord) {
			local, err = filled(g.dtype, sh.Shape, identity(g.dtype, part.Op))
		} else {
			local, err = region(be, full, sh)
		}
		if err != nil {
			g.Release()
			return nil, err
		}
		g.locals = append(g.locals, local)
	}
	return g, nil
}

// keeper reports whether the device at coord keeps the value when a value
// becomes partial: its coordinate is 0 on every P mesh dim.
func keeper(nd NdSbp, coord []int) bool {
	for m, s := range nd {
		if s.Kind == Partial && coord[m] != 0 {
			return false
		}
	}
	return true
}

// region copies the shard's logical range of full into a new buffer.
func region(be tensor.Backend, full tensor.Tensor, sh Shard) (tensor.Tensor, error) {
	idx := make([]tensor.Index, len(sh.Lo))
	for d := range idx {
		idx[d] = tensor.Interval(sh.Lo[d], sh.Hi[d], 1)
	}
	v, err := full.Slice(idx...)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return be.Materialize(v)
}

// FromLocals builds the global tensor of the logical shape on p whose
// devices hold locals (one per device, in placement order), as OneFlow's
// flow.Tensor.to_global does from local tensors. Each local must have its
// shard's shape (Shards); the locals are used as they are, not copied.
func FromLocals(be tensor.Backend, shape tensor.Shape, p Placement, nd NdSbp, locals []tensor.Tensor) (*Global, error) {
	shards, err := Shards(shape, p, nd)
	if err != nil {
		return nil, err
	}
	op := fmt.Sprintf("global %v %v on %v from locals", shape, nd, p)
	if len(locals) != len(shards) {
		return nil, newError(ErrShape, op, "%d devices but %d locals", len(shards), len(locals))
	}
	g := &Global{shape: shape.Clone(), placement: p, nd: nd.Clone(), shards: shards, be: be}
	for i, l := range locals {
		if !l.Valid() {
			return nil, newError(ErrShape, op, "local %d is an empty Tensor value", i)
		}
		if i == 0 {
			g.dtype = l.DType()
		}
		if l.DType() != g.dtype {
			return nil, newError(ErrShape, op, "local %d is %v but local 0 is %v", i, l.DType(), g.dtype)
		}
		if !l.Shape().Equal(shards[i].Shape) {
			return nil, newError(ErrShape, op, "device %d (rank %d) holds the range %v..%v, so its local must be %v, not %v", i, shards[i].Rank, shards[i].Lo, shards[i].Hi, shards[i].Shape, l.Shape())
		}
		d, err := dense(be, l)
		if err != nil {
			return nil, err
		}
		g.locals = append(g.locals, d)
	}
	return g, nil
}

// Shape returns the logical shape.
func (g *Global) Shape() tensor.Shape { return g.shape.Clone() }

// DType returns the element type.
func (g *Global) DType() tensor.DType { return g.dtype }

// Placement returns where the tensor lives.
func (g *Global) Placement() Placement { return g.placement }

// Sbp returns the nd-SBP.
func (g *Global) Sbp() NdSbp { return g.nd.Clone() }

// Shards returns what every device holds.
func (g *Global) Shards() []Shard { return append([]Shard{}, g.shards...) }

// Local returns the buffer of the device at position i (shared).
func (g *Global) Local(i int) tensor.Tensor { return g.locals[i] }

// Backend returns the backend the devices run their kernels on.
func (g *Global) Backend() tensor.Backend { return g.be }

// Box converts g to the nd-SBP to on the same placement by the plan of
// PlanBoxing, running each step's collective on the devices' buffers. It
// returns the new tensor and the plan it ran.
func (g *Global) Box(to NdSbp) (*Global, Boxing, error) {
	b, plan, _, err := g.BoxMoved(to)
	return b, plan, err
}

// BoxMoved is Box that also returns what each step of the plan moved
// between the devices as it ran (one Moved per plan step, in order).
func (g *Global) BoxMoved(to NdSbp) (*Global, Boxing, []Moved, error) {
	plan, err := PlanBoxing(g.shape, g.dtype, g.placement, g.nd, to)
	if err != nil {
		return nil, Boxing{}, nil, err
	}
	out, moved, err := g.RunBoxing(plan)
	if err != nil {
		return nil, Boxing{}, nil, err
	}
	return out, plan, moved, nil
}

// RunBoxing runs a boxing already planned for g (by PlanBoxing, for g's
// shape and placement, from g's SBP), step by step on the devices'
// buffers, and returns the new tensor and what each step moved. A plan
// made for another tensor is refused, naming both.
func (g *Global) RunBoxing(plan Boxing) (*Global, []Moved, error) {
	if !plan.From.Equal(g.nd) || !plan.Shape.Equal(g.shape) || !plan.Placement.Equal(g.placement) {
		return nil, nil, fmt.Errorf("sbp: a boxing planned for %v %v on %v run on %v %v on %v", plan.Shape, plan.From, plan.Placement, g.shape, g.nd, g.placement)
	}
	for _, st := range plan.Steps {
		op := fmt.Sprintf("boxing %v to %v (%v)", st.From, st.To, st.Collective)
		if err := checkFootprint(op, g.shape, g.dtype, g.placement, st.To); err != nil {
			return nil, nil, err
		}
	}
	var moved []Moved
	cur := g
	for _, st := range plan.Steps {
		next, mv, err := cur.step(st)
		if cur != g {
			cur.Release()
		}
		if err != nil {
			return nil, nil, err
		}
		moved = append(moved, mv)
		cur = next
	}
	if cur == g {
		c, err := g.clone()
		return c, moved, err
	}
	return cur, moved, nil
}

// clone copies every local into a new buffer.
func (g *Global) clone() (*Global, error) {
	out := &Global{shape: g.shape, dtype: g.dtype, placement: g.placement, nd: g.nd, shards: g.shards, be: g.be}
	for _, l := range g.locals {
		c, err := g.be.Materialize(l)
		if err != nil {
			out.Release()
			return nil, err
		}
		out.locals = append(out.locals, c)
	}
	return out, nil
}

// Full returns the logical tensor: g boxed to B on every mesh dim, as the
// first device then holds it.
func (g *Global) Full() (tensor.Tensor, error) {
	allB := make(NdSbp, len(g.nd))
	for m := range allB {
		allB[m] = B
	}
	b, _, err := g.Box(allB)
	if err != nil {
		return tensor.Tensor{}, err
	}
	for _, l := range b.locals[1:] {
		l.Release()
	}
	return b.locals[0], nil
}

// Release hands every device's buffer back (tensor.Tensor.Release); g
// must not be used after.
func (g *Global) Release() {
	for _, l := range g.locals {
		l.Release()
	}
	g.locals = nil
}
