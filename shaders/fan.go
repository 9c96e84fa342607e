package shaders

import "github.com/stridelab/stridelab/tensor"

// maxFan is the most outputs one fanned item stores per load.
const maxFan = 8

// fanPlan is an elementwise call recast so that each work item loads its
// fixed operands once and stores up to fan outputs along dim, where they
// read the same element: a broadcast dim (stride 0) of a gather's source
// or of one binary operand, or a repeated dim (the copies of one source
// element). On a GPU a load costs about what a store does, so a kernel
// that loads once per output moves at most half its bytes per memory
// operation; fanning lifts expand, repeat and broadcast binary ops towards
// the plain copy's rate.
type fanPlan struct {
	e     elementwise // the item space: dim's extent in groups, strides along it ×fan
	dim   int
	fan   int
	vary  [2]bool // binary: whether a, b move along dim
	n     int     // dim's output extent
	src   int     // repeat: dim's source extent; 1 otherwise
	ostr  int     // dim's output element stride
	loads [2]int  // a's and b's element stride along dim
}

// fan returns e's fan plan, or ok false when no dim qualifies. The inner
// dim is never fanned: it holds the vec4 items.
func (e *elementwise) fan() (fanPlan, bool) {
	best, extent := -1, 1
	for d := 0; d < len(e.shape)-1; d++ {
		x := 1
		switch e.kernel {
		case kernelGather:
			if e.strides[0][d] == 0 {
				x = e.shape[d]
			}
		case kernelBinary:
			if e.strides[0][d] == 0 || e.strides[1][d] == 0 {
				x = e.shape[d]
			}
		case kernelRepeat:
			x = e.shape[d] / e.aux[d]
		}
		if x >= extent && x > 1 {
			best, extent = d, x
		}
	}
	if best < 0 {
		return fanPlan{}, false
	}
	d, fan := best, min(maxFan, extent)
	p := fanPlan{dim: d, fan: fan, n: e.shape[d], src: 1, ostr: tensor.ContiguousStrides(e.shape)[d]}
	f := *e
	f.shape = append([]int(nil), e.shape...)
	f.strides = nil
	for k, st := range e.strides {
		st = append([]int(nil), st...)
		if e.kernel != kernelRepeat {
			p.loads[k], p.vary[k] = st[d], st[d] != 0
			st[d] *= fan
		}
		f.strides = append(f.strides, st)
	}
	if e.kernel == kernelRepeat {
		p.src = e.aux[d]
		f.shape[d] = p.src * ((extent + fan - 1) / fan)
	} else {
		f.shape[d] = (e.shape[d] + fan - 1) / fan
	}
	p.e = f
	return p, true
}

// outStrides are the output element strides over the item space: the
// output's own, dim's scaled by fan, so offset_out lands on the group's
// first output (fan_out in the prelude steps to the others).
func (p fanPlan) outStrides(outShape []int) []int {
	st := tensor.ContiguousStrides(outShape)
	st[p.dim] *= p.fan
	return st
}
