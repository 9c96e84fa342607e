package shaders

import (
	"slices"
	"testing"
)

func TestWalkPlan(t *testing.T) {
	binary := func(shape []int, a, b []int) elementwise {
		return elementwise{kernel: kernelBinary, shape: shape, strides: [][]int{a, b}}
	}
	for _, c := range []struct {
		name          string
		e             elementwise
		ok            bool
		dim, hold     int
		fan, fanDim   int
		itemSpace     []int
		perRun, units []int // space(perRun[0], perRun[1]): dims, invocations
	}{
		{"add [64,1,4096]+[1,4,4096]: walk i holding b, 4 along j",
			binary([]int{64, 4, 4096}, []int{4096, 0, 1}, []int{0, 4096, 1}), true, 0, 1, 4, 1, []int{64, 1, 4096}, []int{32, 4}, []int{2, 1, 4096, 2048}},
		{"sub [1,4,4096]-[64,1,4096]: holding a",
			binary([]int{64, 4, 4096}, []int{0, 4096, 1}, []int{4096, 0, 1}), true, 0, 0, 4, 1, []int{64, 1, 4096}, []int{8, 4}, []int{8, 1, 4096, 8192}},
		{"[9,1,12]+[1,40,12]: W the longer dim (40, a held), F the other",
			binary([]int{9, 40, 12}, []int{12, 0, 1}, []int{0, 12, 1}), true, 1, 0, 9, 0, []int{1, 40, 12}, []int{8, 1}, []int{1, 5, 12, 60}},
		{"[64,1,4]+[1,40,4]: F of 40 fans 10, a divisor",
			binary([]int{64, 40, 4}, []int{4, 0, 1}, []int{0, 4, 1}), true, 0, 1, 10, 1, []int{64, 4, 4}, []int{16, 4}, []int{4, 4, 4, 16}},
		{"W shorter than minWalk", binary([]int{7, 4, 16}, []int{16, 0, 1}, []int{0, 16, 1}), false, 0, 0, 0, 0, nil, nil, nil},
		{"no F: the walker moves along every other dim", binary([]int{64, 16}, []int{16, 1}, []int{0, 1}), false, 0, 0, 0, 0, nil, nil, nil},
		{"a gather does not walk", elementwise{kernel: kernelGather, shape: []int{64, 4, 16}, strides: [][]int{{16, 0, 1}}}, false, 0, 0, 0, 0, nil, nil, nil},
	} {
		wp, ok := c.e.walk()
		if ok != c.ok {
			t.Errorf("%s: walk %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		ax := wp.fan.axes
		if wp.dim != c.dim || wp.hold != c.hold || len(ax) != 1 || ax[0].fan != c.fan || ax[0].dim != c.fanDim || !slices.Equal(wp.fan.e.shape, c.itemSpace) {
			t.Errorf("%s: W %d, hold %d, fan axes %+v over %v; want W %d, hold %d, a fan of %d along %d over %v",
				c.name, wp.dim, wp.hold, ax, wp.fan.e.shape, c.dim, c.hold, c.fan, c.fanDim, c.itemSpace)
		}
		dims, n := wp.space(c.perRun[0], c.perRun[1])
		if want := c.units; !slices.Equal(dims, want[:len(want)-1]) || n != want[len(want)-1] {
			t.Errorf("%s: walks of %d: space %v, %d invocations; want %v", c.name, c.perRun[0], dims, n, want)
		}
	}
}
