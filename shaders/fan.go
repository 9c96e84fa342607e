package shaders

import (
	"slices"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// maxFan is the most outputs one fanned item stores per load of a fixed
// operand: its block of FAN × FAN2 copies.
const maxFan = 16

// fanBudget is the most outputs in one item's block for kernel k on d,
// over items work items before fanning:
// maxFan, but 8 for a binary op on a stream-bound CPU adapter (TuneCPU),
// and on a GPU no more than leaves fillInvocations items (a block of 16
// over 131,072 items, repeat [64,1,256] by [2,16,1], left 8,192
// invocations to fill a GPU of 270,336 resident threads; 2 leaves 65,536).
// There every store of the block starts in a row of its own, with a row
// of each operand too, and past about 16 rows at once the CPU's
// prefetchers lose track; a binary op's 4 × 4 block touches 24, a 2 × 4
// one 14, and since lavapipe gathers a small operand from a uniform
// binding (uniformLoads) the loads a taller block saves cost little:
// add [1024,1,4096]+[1,4,4096] measured 0.87 to 0.96 of the copy kernel
// at 8 against 0.78 to 0.88 at 16 (five runs each, interleaved). Gather
// and repeat keep 16: on lavapipe 8 made no difference, on SwiftShader
// it was slower (repeat [64,1,256] by [2,16,1]: 0.85 against 0.99).
func (d *Device) fanBudget(k kernel, items int) int {
	switch {
	case d.tuning == TuneCPU && k == kernelBinary:
		return 8
	case !d.onCPU():
		return max(1, min(maxFan, items/fillInvocations))
	}
	return maxFan
}

// fanAxis is one output dim an item fans out along: fan outputs that read
// the same element of a fixed operand.
type fanAxis struct {
	dim   int
	fan   int
	n     int    // dim's output extent
	src   int    // repeat: dim's source extent; 1 otherwise
	ostr  int    // dim's output element stride
	loads [2]int // a's and b's element stride along dim
}

// fanPlan is an elementwise call recast so that each work item loads its
// operands once per value they take in a block of outputs along one or
// two dims (axes), where a fixed operand reads the same element: a
// broadcast dim (stride 0) of a gather's source or of a binary operand, a
// repeated dim (the copies of one source element). On a GPU a load costs
// about what a store does, and on a CPU (lavapipe) every load and store
// of a lane is a separate memory operation; so a kernel that loads once
// per output moves at most half its bytes per operation, and fanning lifts
// expand, repeat and broadcast binary ops towards the plain copy's rate.
type fanPlan struct {
	e    elementwise // the item space: fan dims' extents in groups, operand strides along them ×fan
	axes []fanAxis   // one or two
	tail bool        // some fan does not divide its dim: the last group's copies are checked
}

// fanExtent is how many outputs along output dim d share a load of a
// fixed operand (1: none), and whether a (b) moves along d.
func (e *elementwise) fanExtent(d int) (x int, vary [2]bool) {
	for k, st := range e.strides {
		vary[k] = e.kernel != kernelRepeat && st[d] != 0
	}
	switch e.kernel {
	case kernelGather:
		if e.strides[0][d] == 0 {
			return e.shape[d], vary
		}
	case kernelBinary:
		if e.strides[0][d] == 0 || e.strides[1][d] == 0 {
			return e.shape[d], vary
		}
	case kernelRepeat:
		return e.shape[d] / e.aux[d], vary
	}
	return 1, vary
}

// fan returns e's fan plan, or ok false when no dim qualifies or budget
// is under 2. The inner
// dim is never fanned: it holds the vec4 items. It fans along the dim with
// the most shared outputs and, within budget stores per item, the next:
// for a binary op the one where the other operand is fixed.
func (e *elementwise) fan(budget int) (fanPlan, bool) {
	if budget < 2 {
		return fanPlan{}, false
	}
	type cand struct {
		dim, extent int
		vary        [2]bool
	}
	var cs []cand
	for d := 0; d < len(e.shape)-1; d++ {
		if x, vary := e.fanExtent(d); x > 1 {
			cs = append(cs, cand{d, x, vary})
		}
	}
	if len(cs) == 0 {
		return fanPlan{}, false
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return b.extent - a.extent })
	picked := []cand{cs[0]} // a copy: appending must not overwrite cs
	for _, c := range cs[1:] {
		// A second axis pays when it shares a load the first does not:
		// any repeated or broadcast dim for gather and repeat, for a
		// binary op a dim where an operand moving along the first is fixed.
		if e.kernel != kernelBinary || (cs[0].vary[0] && !c.vary[0]) || (cs[0].vary[1] && !c.vary[1]) {
			picked = append(picked, c)
			break
		}
	}
	// The smaller extent takes up to 4 of the block, the larger the rest;
	// an axis left with a fan of 1 is dropped.
	fans := make([]int, len(picked))
	tail := false
	for i := len(picked) - 1; i >= 0; i-- {
		limit := budget
		if i > 0 {
			limit = min(4, budget)
		}
		fans[i] = 1
		if limit >= 2 {
			f, whole := fanFactor(picked[i].extent, limit)
			fans[i], budget, tail = f, budget/f, tail || !whole
		}
	}
	if fans[0] == 1 {
		picked, fans = picked[1:], fans[1:]
	}
	dims := make([]int, len(picked))
	for i, c := range picked {
		dims[i] = c.dim
	}
	return e.fanAlong(dims, fans, tail), true
}

// fanAlong returns the fan plan of e along dims (one or two), fans[i]
// outputs along dims[i] to an item; tail: some fan does not divide its
// dim's shared outputs.
func (e *elementwise) fanAlong(dims, fans []int, tail bool) fanPlan {
	p := fanPlan{tail: tail}
	f := *e
	f.shape = slices.Clone(e.shape)
	f.strides = nil
	for _, st := range e.strides {
		f.strides = append(f.strides, slices.Clone(st))
	}
	ostr := tensor.ContiguousStrides(e.shape)
	for i, d := range dims {
		fan := fans[i]
		extent, _ := e.fanExtent(d)
		ax := fanAxis{dim: d, fan: fan, n: e.shape[d], src: 1, ostr: ostr[d]}
		for k := range f.strides {
			if e.kernel != kernelRepeat {
				ax.loads[k] = e.strides[k][d]
				f.strides[k][d] *= fan
			}
		}
		if e.kernel == kernelRepeat {
			ax.src = e.aux[d]
			f.shape[d] = ax.src * ((extent + fan - 1) / fan)
		} else {
			f.shape[d] = (e.shape[d] + fan - 1) / fan
		}
		p.axes = append(p.axes, ax)
	}
	p.e = f
	return p
}

// fanFactor returns the fan along a dim of extent shared outputs, at most
// limit: the largest divisor of extent up to limit when it is at least
// half of limit (whole: every group is full), limit otherwise.
func fanFactor(extent, limit int) (fan int, whole bool) {
	if extent <= limit {
		return extent, true
	}
	for f := limit; f >= max(2, limit/2); f-- {
		if extent%f == 0 {
			return f, true
		}
	}
	return limit, false
}

// outStrides are the output element strides over the item space: the
// output's own, the fan dims' scaled by their fan, so offset_out lands on
// the block's first output (fan_out in the prelude steps to the others).
func (p fanPlan) outStrides(outShape []int) []int {
	st := tensor.ContiguousStrides(outShape)
	for _, ax := range p.axes {
		st[ax.dim] *= ax.fan
	}
	return st
}

// dispatch returns the one dispatch of p over the whole call (outShape,
// count outputs), its operands and output bound; the caller sets the
// count, the items per invocation and the workgroups.
func (p fanPlan) dispatch(outShape []int, key programKey, vec int, bufs []*wgpu.Buffer, outBuf *wgpu.Buffer, count int) dispatch {
	dp := p.e.dispatch(key, vec, bufs, nil)
	dp.key.tail = p.tail
	for i, ax := range p.axes {
		v := [4]int32{int32(ax.n), int32(ax.src), int32(ax.ostr), 0}
		if i == 0 {
			dp.key.fan, dp.key.fanDim, dp.params.fan = ax.fan, ax.dim, v
		} else {
			dp.key.fan2, dp.key.fan2Dim, dp.params.fan2 = ax.fan, ax.dim, v
		}
		for k, l := range ax.loads {
			dp.key.vary[2*i+k] = l != 0
			dp.params.fanLoad[2*i+k] = int32(l)
		}
	}
	for i, v := range p.outStrides(outShape) {
		dp.params.strideO[i] = int32(v)
	}
	dp.storage = append(dp.storage, binding{buf: outBuf, size: roundUp16(4 * uint64(count))})
	return dp
}
