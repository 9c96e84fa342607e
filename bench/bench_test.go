package bench

import (
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// BenchmarkCPU runs every case on the CPU backend, releasing each output
// as NumPy frees its arrays (see Measure); b.SetBytes makes `go test
// -bench` print effective GB/s (bytes read + written).
func BenchmarkCPU(b *testing.B) {
	for _, c := range Cases() {
		in, err := c.Inputs()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(c.Bytes())
			for b.Loop() {
				out, err := c.Run(tensor.CPU{}, in)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
}
