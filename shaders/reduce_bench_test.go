package shaders

import (
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// BenchmarkReduceSplit times sum [1024,4,4096] to [1024,1,4096] (64 MiB)
// in one binding and under binding limits that split it into 4 and 16
// pieces, in one run: the cost of the split path against its baseline.
// Each op includes the upload and the readback.
func BenchmarkReduceSplit(b *testing.B) {
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{1024, 4, 4096})
	to := tensor.Shape{1024, 1, 4096}
	for _, limit := range []uint64{0, 16 << 20, 4 << 20} {
		name := "one-binding"
		if limit > 0 {
			name = fmt.Sprintf("limit-%dMiB", limit>>20)
		}
		b.Run(name, func(b *testing.B) {
			d, err := Open(Options{MaxBindingBytes: limit})
			if err != nil {
				b.Skip(err)
			}
			defer d.Close()
			be := NewBackend(d)
			b.SetBytes(int64(4 * (x.NumElements() + 1024*4096)))
			for b.Loop() {
				y, err := be.Reduce(tensor.Sum, x, to)
				if err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
		})
	}
}
