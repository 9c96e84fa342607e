package results

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// counting is the CPU, counting its kernel calls and calling hit (when
// set) on each: a test's way to cancel a context in the middle of the
// work and see how much more of it ran.
type counting struct {
	tensor.CPU
	calls atomic.Int32
	hit   func()
}

func (c *counting) count() {
	c.calls.Add(1)
	if c.hit != nil {
		c.hit()
	}
}

func (c *counting) Materialize(src tensor.Tensor) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Materialize(src)
}

func (c *counting) Unary(op tensor.UnaryOp, src tensor.Tensor) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Unary(op, src)
}

func (c *counting) Softmax(src tensor.Tensor, axis int) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Softmax(src, axis)
}

func (c *counting) Repeat(src tensor.Tensor, times []int) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Repeat(src, times)
}

func (c *counting) Binary(op tensor.BinaryOp, a, b tensor.Tensor) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Binary(op, a, b)
}

func (c *counting) Reduce(op tensor.ReduceOp, src tensor.Tensor, to tensor.Shape) (tensor.Tensor, error) {
	c.count()
	return c.CPU.Reduce(op, src, to)
}

// TestComputeStopsBetweenKernelCalls: a context cancelled during the
// first kernel call of a scene on the simulated devices (scattering a
// shard, boxing, a device's op, a program's step) stops the compute
// there: no other kernel runs, and Compute returns context.Canceled.
func TestComputeStopsBetweenKernelCalls(t *testing.T) {
	for _, scene := range []string{"placement", "boxing", "plan", "program"} {
		spec, _ := viz.Example(scene)
		s, err := viz.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		be := &counting{hit: cancel}
		_, err = Compute(ctx, s, be)
		if n := be.calls.Load(); !errors.Is(err, context.Canceled) || n != 1 {
			t.Errorf("%s, cancelled in the first kernel call: %d calls ran, error %v; want 1 and context.Canceled", spec, n, err)
		}
		cancel()
	}
}

// TestComputeStopsInsideTheReference: a context cancelled while the CPU
// reference runs its first slab stops the reference there, for every
// kind of kernel scene: one slab of many runs, and Compute returns
// context.Canceled instead of the whole kernel's result.
func TestComputeStopsInsideTheReference(t *testing.T) {
	for _, v := range []map[string]string{
		{"scene": "expand", "shape": "1,1", "size": "64,4096"},
		{"scene": "repeat", "shape": "2,4096", "times": "32,1"},
		{"scene": "binary", "shape": "64,1", "b-shape": "1,4096", "op": "add"},
		{"scene": "reduce", "shape": "64,4096,2", "to": "64,1,1"},
	} {
		spec := viz.Spec{Scene: v["scene"], Values: v}
		delete(spec.Values, "scene")
		s, err := viz.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ref := &counting{hit: cancel}
		_, err = compute(ctx, s, tensor.CPU{}, tensor.CPU{}, cancellable{ctx: ctx, be: ref, slab: 4096})
		if n := ref.calls.Load(); !errors.Is(err, context.Canceled) || n != 1 {
			t.Errorf("%v, cancelled in the reference's first slab: %d slabs of 64 ran, error %v; want 1 and context.Canceled", spec, n, err)
		}
		cancel()
	}
}

// TestCancellableIsTheKernel: in slabs, each kernel writes what it writes
// whole, element for element, over every layout kind (contiguous,
// permuted, expanded, an offset slice) and dtype, with slabs that do not
// divide the first dim, cross copies of a repeat, or are smaller than a
// row; and a reduction over the first dim, which runs whole.
func TestCancellableIsTheKernel(t *testing.T) {
	cpu := tensor.CPU{}
	arange := func(dt tensor.DType, shape ...int) tensor.Tensor {
		x, err := tensor.Arange(dt, shape)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := arange(tensor.Float32, 7, 5, 3)
	perm, _ := x.Permute([]int{2, 0, 1})
	slice, _ := x.Narrow(0, 2, 7)
	slice, _ = slice.Narrow(2, 1, 3)
	col := arange(tensor.Int32, 9, 1)
	exp, _ := col.Expand([]int{9, 4})
	row := arange(tensor.Int32, 1, 4)
	type kernel func(be tensor.Backend) (tensor.Tensor, error)
	cases := map[string]kernel{
		"materialize contiguous": func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(x) },
		"materialize permuted":   func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(perm) },
		"materialize slice":      func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(slice) },
		"materialize expanded":   func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(exp) },
		"repeat":                 func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(x, []int{3, 1, 2}) },
		"repeat new dims":        func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(slice, []int{2, 3, 1, 2}) },
		"repeat permuted":        func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(perm, []int{2, 2, 1}) },
		"binary broadcast":       func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(tensor.Sub, col, row) },
		"binary strided":         func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(tensor.Mul, perm, perm) },
		"binary rank up": func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Binary(tensor.Add, arange(tensor.Uint32, 3), arange(tensor.Uint32, 6, 1))
		},
		"reduce keeps dim 0": func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Reduce(tensor.Sum, perm, tensor.Shape{3, 1, 5})
		},
		"reduce over dim 0": func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Reduce(tensor.MaxAll, slice, tensor.Shape{1, 5, 1})
		},
		"binary then reduce (a matmul's mul and sum over k)": func(be tensor.Backend) (tensor.Tensor, error) {
			a, _ := arange(tensor.Float32, 6, 4).Reshape(tensor.Shape{6, 4, 1})
			b, _ := arange(tensor.Float32, 4, 3).Reshape(tensor.Shape{1, 4, 3})
			return tensor.BinaryReduce(be, tensor.Mul, tensor.Sum, a, b, tensor.Shape{6, 1, 3})
		},
		"softmax along the last dim": func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(perm, 2) },
		"softmax along dim 0":        func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(slice, 0) },
	}
	for name, run := range cases {
		want, err := run(cpu)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, slab := range []int{1, 2, 5, 7, 16, 1 << 20} {
			got, err := run(cancellable{ctx: context.Background(), be: cpu, slab: slab})
			if err != nil {
				t.Fatalf("%s in slabs of %d: %v", name, slab, err)
			}
			if g, w := fmt.Sprint(got.Shape(), got.Float64s()), fmt.Sprint(want.Shape(), want.Float64s()); g != w || got.DType() != want.DType() {
				t.Errorf("%s in slabs of %d = %s, want the kernel's %s", name, slab, g, w)
			}
			got.Release()
		}
		want.Release()
	}
	// Errors are the kernel's own, named by the whole call.
	_, err := cancellable{ctx: context.Background(), be: cpu, slab: 2}.Repeat(x, []int{2})
	_, werr := cpu.Repeat(x, []int{2})
	if err == nil || err.Error() != werr.Error() {
		t.Errorf("repeat by too few times in slabs: %v, want the kernel's %v", err, werr)
	}
}

// TestCancelledBeforeAnyKernel: a context done before Compute starts
// runs nothing.
func TestCancelledBeforeAnyKernel(t *testing.T) {
	s, err := viz.Build(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	be := &counting{}
	if _, err := Compute(ctx, s, be); !errors.Is(err, context.Canceled) || be.calls.Load() != 0 {
		t.Errorf("a cancelled context: %d kernel calls, error %v; want none and context.Canceled", be.calls.Load(), err)
	}
}
