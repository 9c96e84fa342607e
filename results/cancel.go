package results

import (
	"context"
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// cpuSlab is how many elements of work one slab of a CPU kernel does
// before the context is checked again: 4 Mi, four times tensor's
// parallel grain (1 Mi elements), so every slab still splits across the
// cores, while a slab of float32 is 16 MiB, a few milliseconds at memory
// speed, so a cancelled compute stops within milliseconds rather than
// after a kernel of up to the whole result budget.
const cpuSlab = 1 << 22

// cancellable is a tensor.Backend that stops once ctx is done: every
// kernel call checks ctx first and returns ctx.Err(), so the simulated
// devices of package sbp (a call per device, per boxing piece, per
// scattered shard) and a program's plan (calls per step) stop between
// calls. With slab > 0 (the CPU reference), one call also runs as slabs
// of its output's first dim, about slab elements of work each, with ctx
// checked between them; each slab is the same kernel on a narrowed view,
// so the result is the kernel's own, element for element.
//
// tensor.Backend takes no context: a kernel is a call that ends, and the
// WebGPU backend cannot stop a dispatch it has submitted. Only the CPU,
// whose kernels are loops, is split, since splitting a GPU kernel would
// cost a readback per slab.
type cancellable struct {
	ctx  context.Context
	be   tensor.Backend
	slab int
}

// stoppable wraps be (the CPU reference when nil) so that it stops once
// ctx is done; the CPU runs in slabs of cpuSlab.
func stoppable(ctx context.Context, be tensor.Backend) cancellable {
	if be == nil {
		be = tensor.CPU{}
	}
	c := cancellable{ctx: ctx, be: be}
	if _, ok := be.(tensor.CPU); ok {
		c.slab = cpuSlab
	}
	return c
}

// Name is the wrapped backend's.
func (c cancellable) Name() string { return c.be.Name() }

// BinaryReduce is be's one call where be has it (tensor.BinaryReducer),
// otherwise the two calls through c (each checking ctx, the CPU in slabs).
func (c cancellable) BinaryReduce(bop tensor.BinaryOp, rop tensor.ReduceOp, a, b tensor.Tensor, to tensor.Shape) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	if br, ok := c.be.(tensor.BinaryReducer); ok {
		return br.BinaryReduce(bop, rop, a, b, to)
	}
	return tensor.BinaryThenReduce(c, bop, rop, a, b, to)
}

// Materialize is be's, in slabs of src's first dim.
func (c cancellable) Materialize(src tensor.Tensor) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	if !src.Valid() {
		return c.be.Materialize(src)
	}
	return c.viewSlabs(src, c.be.Materialize)
}

// viewSlabs runs kernel, an elementwise kernel of one view, on src in
// slabs of its first dim: each slab the kernel on src narrowed to them.
func (c cancellable) viewSlabs(src tensor.Tensor, kernel func(tensor.Tensor) (tensor.Tensor, error)) (tensor.Tensor, error) {
	out := src.Shape()
	return c.slabbed(src.DType(), out, inner(out), 0, func() (tensor.Tensor, error) { return kernel(src) }, func(lo, hi int) (tensor.Tensor, error) {
		v, err := src.Narrow(0, lo, hi)
		if err != nil {
			return tensor.Tensor{}, err
		}
		return kernel(v)
	})
}

// Unary is be's, in slabs of src's first dim, as Materialize.
func (c cancellable) Unary(op tensor.UnaryOp, src tensor.Tensor) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	if tensor.UnaryOperand(op, src) != nil {
		return c.be.Unary(op, src) // the kernel's own error
	}
	return c.viewSlabs(src, func(v tensor.Tensor) (tensor.Tensor, error) { return c.be.Unary(op, v) })
}

// Softmax is be's, in slabs of src's first dim when the softmax runs
// along another (each slab's lines are whole), and whole along dim 0,
// whose lines cross every slab.
func (c cancellable) Softmax(src tensor.Tensor, axis int) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	if tensor.SoftmaxOperand(src, axis) != nil || axis == 0 {
		return c.be.Softmax(src, axis) // the kernel's own error, or its whole run
	}
	return c.viewSlabs(src, func(v tensor.Tensor) (tensor.Tensor, error) { return c.be.Softmax(v, axis) })
}

// Gather is be's, whole: its output rows follow the ids, and a lookup
// reads each of them once.
func (c cancellable) Gather(table, ids tensor.Tensor, lo int) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	return c.be.Gather(table, ids, lo)
}

// ScatterAdd is be's, whole: every row of its output may sum values
// from anywhere in src.
func (c cancellable) ScatterAdd(src, ids tensor.Tensor, lo, rows int) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	return c.be.ScatterAdd(src, ids, lo, rows)
}

// Binary is be's, in slabs of the broadcast output's first dim: both
// operands expanded to it (stride 0 on broadcast dims) and narrowed alike.
func (c cancellable) Binary(op tensor.BinaryOp, a, b tensor.Tensor) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	whole := func() (tensor.Tensor, error) { return c.be.Binary(op, a, b) }
	out, _, _, err := tensor.BinaryOperands(op, a, b)
	if err != nil {
		return whole() // the kernel's own error
	}
	ae, err1 := a.Expand(out)
	bx, err2 := b.Expand(out)
	if err1 != nil || err2 != nil {
		return whole()
	}
	return c.slabbed(a.DType(), out, inner(out), 0, whole, func(lo, hi int) (tensor.Tensor, error) {
		an, err1 := ae.Narrow(0, lo, hi)
		bn, err2 := bx.Narrow(0, lo, hi)
		if err1 != nil || err2 != nil {
			return tensor.Tensor{}, fmt.Errorf("results: narrow %v to rows %d:%d: %v %v", out, lo, hi, err1, err2)
		}
		return c.be.Binary(op, an, bn)
	})
}

// Repeat is be's, in slabs of the output's first dim that stay inside one
// copy of src (padded on the left to len(times) dims): output rows
// [lo, hi) of copy k = lo / s0 are src rows [lo mod s0, …) repeated by
// times with times[0] = 1.
func (c cancellable) Repeat(src tensor.Tensor, times []int) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	whole := func() (tensor.Tensor, error) { return c.be.Repeat(src, times) }
	if !src.Valid() {
		return whole()
	}
	plan, err := tensor.PlanRepeat(src.Shape(), times)
	if err != nil || len(times) == 0 {
		return whole()
	}
	padded := make([]int, len(times)-len(src.Shape()))
	for i := range padded {
		padded[i] = 1
	}
	p, err := src.Reshape(append(padded, src.Shape()...))
	if err != nil || p.Shape()[0] == 0 {
		return whole()
	}
	s0 := p.Shape()[0]
	rest := append([]int{1}, times[1:]...)
	out := plan.OutShape
	return c.slabbed(src.DType(), out, inner(out), s0, whole, func(lo, hi int) (tensor.Tensor, error) {
		v, err := p.Narrow(0, lo%s0, lo%s0+hi-lo)
		if err != nil {
			return tensor.Tensor{}, err
		}
		return c.be.Repeat(v, rest)
	})
}

// Reduce is be's, in slabs of src's first dim when the reduction keeps
// it (each output row then reads only its own input rows); a reduction
// over the first dim runs whole.
func (c cancellable) Reduce(op tensor.ReduceOp, src tensor.Tensor, to tensor.Shape) (tensor.Tensor, error) {
	if err := c.ctx.Err(); err != nil {
		return tensor.Tensor{}, err
	}
	whole := func() (tensor.Tensor, error) { return c.be.Reduce(op, src, to) }
	if _, err := tensor.ReduceOperands(op, src, to); err != nil {
		return whole() // the kernel's own error
	}
	sh := src.Shape()
	if len(to) != len(sh) || len(sh) == 0 || to[0] != sh[0] {
		return whole()
	}
	return c.slabbed(src.DType(), to, inner(sh), 0, whole, func(lo, hi int) (tensor.Tensor, error) {
		v, err := src.Narrow(0, lo, hi)
		if err != nil {
			return tensor.Tensor{}, err
		}
		t := to.Clone()
		t[0] = hi - lo
		return c.be.Reduce(op, v, t)
	})
}

// inner is the elements under one index of shape's first dim.
func inner(shape tensor.Shape) int {
	n := 1
	for _, d := range shape[min(1, len(shape)):] {
		n *= d
	}
	return n
}

// slabbed computes a result of shape out from slabs of its first dim:
// kernel(lo, hi) returns rows [lo, hi), each row costing work elements;
// a slab never crosses a multiple of cut rows (0: any). ctx is checked
// before every slab. Without slabs (slab 0, or less work than one slab)
// whole runs instead.
func (c cancellable) slabbed(dt tensor.DType, out tensor.Shape, work, cut int, whole func() (tensor.Tensor, error), kernel func(lo, hi int) (tensor.Tensor, error)) (tensor.Tensor, error) {
	if c.slab <= 0 || len(out) == 0 || out[0] <= 1 || work == 0 || out[0] <= c.slab/work {
		return whole()
	}
	y, err := tensor.Empty(dt, out)
	if err != nil {
		return tensor.Tensor{}, err
	}
	rows, n0, rowLen := max(1, c.slab/work), out[0], inner(out)
	for lo := 0; lo < n0; {
		hi := min(lo+rows, n0)
		if cut > 0 {
			hi = min(hi, (lo/cut+1)*cut)
		}
		if err := c.ctx.Err(); err != nil {
			y.Release()
			return tensor.Tensor{}, err
		}
		part, err := kernel(lo, hi)
		if err == nil {
			err = copyRows(y, lo*rowLen, part)
			part.Release()
		}
		if err != nil {
			y.Release()
			return tensor.Tensor{}, err
		}
		lo = hi
	}
	return y, nil
}

// copyRows copies contiguous part into dst's buffer from element at.
func copyRows(dst tensor.Tensor, at int, part tensor.Tensor) error {
	switch dst.DType() {
	case tensor.Float32:
		return copyAs[float32](dst, at, part)
	case tensor.Int32:
		return copyAs[int32](dst, at, part)
	case tensor.Uint32:
		return copyAs[uint32](dst, at, part)
	}
	return fmt.Errorf("results: no slab copy for %v", dst.DType())
}

func copyAs[T tensor.Elem](dst tensor.Tensor, at int, part tensor.Tensor) error {
	d, err := tensor.Buffer[T](dst)
	if err != nil {
		return err
	}
	s, err := tensor.Buffer[T](part)
	if err != nil {
		return err
	}
	l, n := part.Layout(), part.NumElements()
	if !l.IsContiguous() || l.Base()+n > len(s) || at+n > len(d) {
		return fmt.Errorf("results: a slab of %v at %d does not fit (a kernel returned a non-contiguous result)", l, at)
	}
	copy(d[at:at+n], s[l.Base():l.Base()+n])
	return nil
}
