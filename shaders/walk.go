package shaders

import (
	"slices"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// walkPlan is a broadcast binary call recast for wgsl/binary_walk.wgsl:
// along dim W one operand (the held one) is fixed and the other (the
// walker) moves; along dim F the walker is fixed and the held operand
// moves. An invocation loads the held operand's values along F once, into
// registers, then steps down W: per step one load of the walker and a
// store for each of the FAN outputs along F that share it. For
// out[i,j,k] = a[i,0,k] + b[0,j,k] (W = i, F = j, b held) that is 1 load
// per FAN outputs, where a 4 × 4 block (fanPlan) makes 8 loads per 16.
// The walk is what TuneCPUOpBound does: its lanes jump a row of the output
// at every step, which an op-bound adapter hardly feels and a
// stream-bound one does (see TuneCPUOpBound).
type walkPlan struct {
	fan  fanPlan // the item space, fanned along F alone
	dim  int     // W
	hold int     // the held operand: 0 (a) or 1 (b)
}

// minWalk is the shortest dim a walk takes: shorter, the held values'
// loads are spread over too few steps for a walk to beat a block.
const minWalk = 8

// walk returns e's walk plan, or ok false when e is not a binary call
// with such dims W and F (neither the inner dim, which holds the vec4
// items). It walks the longest W, fanning along the longest F.
func (e *elementwise) walk() (walkPlan, bool) {
	if e.kernel != kernelBinary {
		return walkPlan{}, false
	}
	last := len(e.shape) - 1
	w, f, hold := -1, -1, 0
	for d := 0; d < last; d++ {
		for h := range 2 {
			walker := 1 - h
			if e.strides[h][d] != 0 || e.strides[walker][d] == 0 || e.shape[d] < minWalk || (w >= 0 && e.shape[d] <= e.shape[w]) {
				continue
			}
			g := -1
			for x := 0; x < last; x++ {
				if x != d && e.strides[walker][x] == 0 && e.strides[h][x] != 0 && (g < 0 || e.shape[x] > e.shape[g]) {
					g = x
				}
			}
			if g >= 0 {
				w, f, hold = d, g, h
			}
		}
	}
	if w < 0 {
		return walkPlan{}, false
	}
	fan, whole := fanFactor(e.shape[f], maxFan)
	return walkPlan{fan: e.fanAlong([]int{f}, []int{fan}, !whole), dim: w, hold: hold}, true
}

// space returns the walk's invocation space: the fanned item space with
// W cut into runs of per (shape[W] becomes ⌈shape[W] / per⌉), and the
// invocations it holds (vec4 items along the inner dim when vec is 4).
func (wp walkPlan) space(per, vec int) (dims []int, invocations int) {
	dims = slices.Clone(wp.fan.e.shape)
	dims[wp.dim] = (dims[wp.dim] + per - 1) / per
	n, _ := tensor.Shape(dims).NumElements()
	return dims, n / vec
}

// walkDispatch returns the one dispatch that walks e (count outputs) on
// an op-bound adapter (TuneCPUOpBound): an invocation walks per steps, as
// many items as an elementwise invocation takes (Device.itemsPer), at
// most W. ok is false on other adapters, when e has no walk plan, or when
// its workgroups would not fit the grid.
func (d *Device) walkDispatch(e *elementwise, key programKey, vec int, bufs []*wgpu.Buffer, outBuf *wgpu.Buffer, count int) (dispatch, bool) {
	if d.tuning != TuneCPUOpBound {
		return dispatch{}, false
	}
	wp, ok := e.walk()
	if !ok {
		return dispatch{}, false
	}
	key.kernel, key.walkDim, key.hold = kernelBinaryWalk, wp.dim, wp.hold
	dp := wp.fan.dispatch(e.shape, key, vec, bufs, outBuf, count)
	items, _ := tensor.Shape(wp.fan.e.shape).NumElements()
	per := min(d.itemsPer(items/vec), wp.fan.e.shape[wp.dim])
	dims, invocations := wp.space(per, vec)
	groups := uint64(invocations+workgroupSize-1) / workgroupSize
	if limit := uint64(d.limits.MaxComputeWorkgroupsPerDimension); groups > limit*limit {
		return dispatch{}, false
	}
	for i, n := range dims {
		dp.params.aux[i] = uint32(n)
	}
	dp.params.count, dp.params.per, dp.workgrps = uint32(invocations), uint32(per), groups
	return dp, true
}
