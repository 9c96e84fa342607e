package shaders

import "testing"

func TestFanBudget(t *testing.T) {
	add := elementwise{kernel: kernelBinary, shape: []int{64, 4, 16}, strides: [][]int{{16, 0, 1}, {0, 16, 1}}}
	expand := elementwise{kernel: kernelGather, shape: []int{64, 4, 16}, strides: [][]int{{0, 0, 1}}}
	lavapipe, swiftshader, gpu := &Device{tuning: TuneCPU}, &Device{tuning: TuneCPUOpBound}, &Device{tuning: TuneGPU}
	for _, c := range []struct {
		name string
		d    *Device
		e    elementwise
		want [][2]int // (dim, fan) per axis
	}{
		{"add on lavapipe: a 2 × 4 block", lavapipe, add, [][2]int{{0, 2}, {1, 4}}},
		{"add on a GPU: 4 × 4", gpu, add, [][2]int{{0, 4}, {1, 4}}},
		{"add on SwiftShader, when it does not walk: 4 × 4", swiftshader, add, [][2]int{{0, 4}, {1, 4}}},
		{"expand on lavapipe keeps a block of 16: 4 × 4", lavapipe, expand, [][2]int{{0, 4}, {1, 4}}},
	} {
		p, ok := c.e.fan(c.d.fanBudget(c.e.kernel))
		var got [][2]int
		for _, ax := range p.axes {
			got = append(got, [2]int{ax.dim, ax.fan})
		}
		if !ok || len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) || (len(got) > 1 && got[1] != c.want[1]) {
			t.Errorf("%s: axes (dim, fan) %v, want %v", c.name, got, c.want)
		}
	}
}
