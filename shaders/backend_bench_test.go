package shaders

import (
	"runtime"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// BenchmarkSmallCalls times calls on tensors of 15 elements, where a
// call's own costs (buffers, bind groups, a submission, a readback) are
// all there is: what the simulated devices of package sbp pay for every
// shard and every boxing step. It keeps 256 MiB of Go heap alive, as a
// program holding tensors does, so the garbage collector runs seldom:
// run it long (-benchtime=25000x) to see whether a device slows down as
// it ages (free).
func BenchmarkSmallCalls(b *testing.B) {
	d, err := Open(Options{})
	if err != nil {
		b.Skip(err)
	}
	defer d.Close()
	g := NewBackend(d)
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{3, 5})
	xt, _ := x.Permute([]int{1, 0})
	row, _ := tensor.Arange(tensor.Float32, tensor.Shape{1, 5})
	heap := make([]byte, 256<<20)
	defer runtime.KeepAlive(heap)
	for _, c := range []struct {
		name string
		call func() (tensor.Tensor, error)
	}{
		{"materialize", func() (tensor.Tensor, error) { return g.Materialize(xt) }},
		{"binary", func() (tensor.Tensor, error) { return g.Binary(tensor.Add, x, row) }},
		{"reduce", func() (tensor.Tensor, error) { return g.Reduce(tensor.Sum, x, tensor.Shape{3, 1}) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				y, err := c.call()
				if err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
		})
	}
}
