package shaders

import (
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func TestFanBudget(t *testing.T) {
	add := elementwise{kernel: kernelBinary, shape: []int{64, 4, 16}, strides: [][]int{{16, 0, 1}, {0, 16, 1}}}
	big := elementwise{kernel: kernelBinary, shape: []int{16384, 4, 4096}, strides: [][]int{{4096, 0, 1}, {0, 4096, 1}}}
	expand := elementwise{kernel: kernelGather, shape: []int{64, 4, 16}, strides: [][]int{{0, 0, 1}}}
	lavapipe, swiftshader, gpu := &Device{tuning: TuneCPU}, &Device{tuning: TuneCPUOpBound}, &Device{tuning: TuneGPU}
	for _, c := range []struct {
		name string
		d    *Device
		e    elementwise
		want [][2]int // (dim, fan) per axis
	}{
		{"add on lavapipe: a 2 × 4 block", lavapipe, add, [][2]int{{0, 2}, {1, 4}}},
		{"a large add on a GPU: 4 × 4", gpu, big, [][2]int{{0, 4}, {1, 4}}},
		{"a small add on a GPU: no block (its 1,024 items are few enough)", gpu, add, nil},
		{"add on SwiftShader, when it does not walk: 4 × 4", swiftshader, add, [][2]int{{0, 4}, {1, 4}}},
		{"expand on lavapipe keeps a block of 16: 4 × 4", lavapipe, expand, [][2]int{{0, 4}, {1, 4}}},
	} {
		items, _ := tensor.Shape(c.e.shape).NumElements()
		p, ok := c.e.fan(c.d.fanBudget(c.e.kernel, items))
		var got [][2]int
		for _, ax := range p.axes {
			got = append(got, [2]int{ax.dim, ax.fan})
		}
		if c.want == nil {
			if ok {
				t.Errorf("%s: axes (dim, fan) %v, want none", c.name, got)
			}
			continue
		}
		if !ok || len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) || (len(got) > 1 && got[1] != c.want[1]) {
			t.Errorf("%s: axes (dim, fan) %v, want %v", c.name, got, c.want)
		}
	}
}
