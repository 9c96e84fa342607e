package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// step runs one boxing step: every group of devices along st.MeshDim
// runs st.Collective on its buffers. The result's buffers are all new.
func (g *Global) step(st Step) (*Global, error) {
	shards, err := Shards(g.shape, g.placement, st.To)
	if err != nil {
		return nil, err
	}
	out := &Global{shape: g.shape, dtype: g.dtype, placement: g.placement, nd: st.To.Clone(), shards: shards, be: g.be, locals: make([]tensor.Tensor, len(shards))}
	x, y := st.From[st.MeshDim], st.To[st.MeshDim]
	for _, grp := range g.placement.groups(st.MeshDim) {
		in := make([]tensor.Tensor, len(grp))
		for c, i := range grp {
			in[c] = g.locals[i]
		}
		res, err := g.collective(st.Collective, x, y, in)
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("sbp: %s from %v to %v on mesh dim %d: %w", st.Collective, st.From, st.To, st.MeshDim, err)
		}
		for c, i := range grp {
			out.locals[i] = res[c]
		}
	}
	for i, l := range out.locals {
		if !l.Shape().Equal(shards[i].Shape) {
			out.Release()
			return nil, newError(ErrShape, fmt.Sprintf("%s from %v to %v", st.Collective, st.From, st.To), "device %d ended with %v but its shard is %v (a bug in the collective)", i, l.Shape(), shards[i].Shape)
		}
	}
	return out, nil
}

// collective converts the buffers of one group (in mesh order) from x to
// y and returns a new buffer per device.
func (g *Global) collective(c Collective, x, y SBP, in []tensor.Tensor) ([]tensor.Tensor, error) {
	k := len(in)
	out := make([]tensor.Tensor, k)
	var err error
	switch c {
	case AllGather:
		var full tensor.Tensor
		if full, err = tensor.Concat(x.Axis, in...); err == nil {
			err = g.copies(full, out)
		}
	case AllReduce:
		var full tensor.Tensor
		if full, err = combine(g.be, x.Op, in); err == nil {
			err = g.copies(full, out)
		}
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

// copies gives every device its own copy of full (the first gets full).
func (g *Global) copies(full tensor.Tensor, out []tensor.Tensor) error {
	out[0] = full
	for q := 1; q < len(out); q++ {
		c, err := g.be.Materialize(full)
		if err != nil {
			return err
		}
		out[q] = c
	}
	return nil
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
