package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// step runs one boxing step: every group of devices along st.MeshDim
// runs st.Collective on its buffers, counting what moves between them.
// The result's buffers are all new.
func (g *Global) step(st Step) (*Global, Moved, error) {
	mv := newMoved(st, len(g.locals))
	shards, err := Shards(g.shape, g.placement, st.To)
	if err != nil {
		return nil, Moved{}, err
	}
	out := &Global{shape: g.shape, dtype: g.dtype, placement: g.placement, nd: st.To.Clone(), shards: shards, be: g.be, locals: make([]tensor.Tensor, len(shards))}
	x, y := st.From[st.MeshDim], st.To[st.MeshDim]
	for _, grp := range g.placement.Groups(st.MeshDim) {
		in := make([]tensor.Tensor, len(grp))
		for c, i := range grp {
			in[c] = g.locals[i]
		}
		res, err := g.collective(st.Collective, x, y, in, grp, &mv)
		if err != nil {
			out.Release()
			return nil, Moved{}, fmt.Errorf("sbp: %s from %v to %v on mesh dim %d: %w", st.Collective, st.From, st.To, st.MeshDim, err)
		}
		for c, i := range grp {
			out.locals[i] = res[c]
		}
	}
	for i, l := range out.locals {
		if !l.Shape().Equal(shards[i].Shape) {
			out.Release()
			return nil, Moved{}, newError(ErrShape, fmt.Sprintf("%s from %v to %v", st.Collective, st.From, st.To), "device %d ended with %v but its shard is %v (a bug in the collective)", i, l.Shape(), shards[i].Shape)
		}
	}
	return out, mv, nil
}

// collective converts the buffers of one group (in mesh order; grp
// holds their devices) from x to y and returns a new buffer per device.
// Every piece a device takes from another's buffer goes through mv.hand.
func (g *Global) collective(c Collective, x, y SBP, in []tensor.Tensor, grp []int, mv *Moved) ([]tensor.Tensor, error) {
	k := len(in)
	out := make([]tensor.Tensor, k)
	var err error
	switch c {
	case AllGather:
		for q := range out {
			pieces := make([]tensor.Tensor, k)
			for r := range in {
				pieces[r] = mv.hand(grp[r], grp[q], in[r])
			}
			if out[q], err = tensor.Concat(x.Axis, pieces...); err != nil {
				return nil, err
			}
		}
	case AllReduce:
		return g.allReduce(x.Op, in, grp, mv)
	case ReduceScatter, AllToAll:
		// Device q receives from every device r the part of r's buffer
		// that lies in q's range along y's axis, and reduces (P -> S) or
		// concatenates (S -> S) the pieces.
		extent := in[0].Shape()[y.Axis]
		for q := range out {
			lo, hi := partRange(extent, k, q)
			pieces := make([]tensor.Tensor, k)
			for r := range in {
				if pieces[r], err = sliceAxis(g.be, in[r], y.Axis, lo, hi); err != nil {
					return nil, err
				}
				mv.hand(grp[r], grp[q], pieces[r])
			}
			if c == ReduceScatter {
				out[q], err = combine(g.be, x.Op, pieces)
			} else {
				out[q], err = tensor.Concat(x.Axis, pieces...)
			}
			for _, p := range pieces {
				p.Release()
			}
			if err != nil {
				return nil, err
			}
		}
	case LocalSlice:
		extent := in[0].Shape()[y.Axis]
		for q := range out {
			lo, hi := partRange(extent, k, q)
			if out[q], err = sliceAxis(g.be, in[q], y.Axis, lo, hi); err != nil {
				return nil, err
			}
		}
	case LocalZero:
		for q := range out {
			if q == 0 {
				out[q], err = g.be.Materialize(in[q])
			} else {
				out[q], err = filled(g.dtype, in[q].Shape(), identity(g.dtype, y.Op))
			}
			if err != nil {
				return nil, err
			}
		}
	case LocalPad:
		total := 0
		for _, l := range in {
			total += l.Shape()[x.Axis]
		}
		before := 0
		for q := range out {
			n := in[q].Shape()[x.Axis]
			if out[q], err = g.pad(in[q], x.Axis, before, total-before-n, y.Op); err != nil {
				return nil, err
			}
			before += n
		}
	default:
		return nil, fmt.Errorf("unknown collective %q", c)
	}
	return out, err
}

// allReduce runs an all-reduce as PlanBoxing counts it: the values
// flattened and cut in BalancedSplit(s, k) parts, device q combines part
// q of every device's buffer (a reduce-scatter), then every device
// concatenates the combined parts (an all-gather). Each element is
// combined in device order, as one combine of the whole buffers would.
func (g *Global) allReduce(op tensor.ReduceOp, in []tensor.Tensor, grp []int, mv *Moved) ([]tensor.Tensor, error) {
	k := len(in)
	shape := in[0].Shape()
	s := in[0].NumElements()
	flat := make([]tensor.Tensor, k)
	for r, t := range in {
		d, err := dense(g.be, t)
		if err != nil {
			return nil, err
		}
		if flat[r], err = d.Reshape([]int{s}); err != nil {
			return nil, err
		}
	}
	parts := make([]tensor.Tensor, k)
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	lo := 0
	for q, n := range BalancedSplit(s, k) {
		pieces := make([]tensor.Tensor, k)
		for r := range flat {
			v, err := flat[r].Narrow(0, lo, lo+n)
			if err != nil {
				return nil, err
			}
			pieces[r] = mv.hand(grp[r], grp[q], v)
		}
		var err error
		if parts[q], err = combine(g.be, op, pieces); err != nil {
			return nil, err
		}
		lo += n
	}
	out := make([]tensor.Tensor, k)
	for q := range out {
		pieces := make([]tensor.Tensor, k)
		for r := range parts {
			pieces[r] = mv.hand(grp[r], grp[q], parts[r])
		}
		full, err := tensor.Concat(0, pieces...)
		if err == nil {
			out[q], err = full.Reshape(shape)
		}
		if err != nil {
			for _, o := range out[:q] {
				o.Release()
			}
			return nil, err
		}
	}
	return out, nil
}

// pad surrounds t along axis with lo and hi slices of op's identity.
func (g *Global) pad(t tensor.Tensor, axis, lo, hi int, op tensor.ReduceOp) (tensor.Tensor, error) {
	id := identity(g.dtype, op)
	parts := []tensor.Tensor{}
	for _, n := range []int{lo, -1, hi} {
		if n == -1 {
			parts = append(parts, t)
			continue
		}
		s := t.Shape()
		s[axis] = n
		f, err := filled(g.dtype, s, id)
		if err != nil {
			return tensor.Tensor{}, err
		}
		parts = append(parts, f)
	}
	return tensor.Concat(axis, parts...)
}
