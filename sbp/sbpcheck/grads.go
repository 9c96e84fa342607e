package sbpcheck

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// GradSignatureCases are SignatureCases of the backward's own ops, the
// gradient ops OneFlow's autograd writes: broadcast_like and
// reduce_sum_like (their like in every layout their lists give it),
// matmul with each combination of transpose flags, a batched a's
// broadcast_matmul_grad_b, the unary ops' *_grad ops and softmax_grad,
// every signature of each run as it is on 1 to 5 devices and 2-D meshes.
// The *_grad and softmax_grad ops take float32 only; the others every
// dtype.
func GradSignatureCases() []Case { return gradCases(false) }

// GradKernelCases are GradSignatureCases with broadcast_like's and
// reduce_sum_like's like laid out B only. like is read for its shape
// alone, so its layout never reaches a kernel: a backend's kernels see
// every case the full list gives them, in a fifth of the cases (the
// shaders' tests run these on WebGPU, where each case is a few
// dispatches; the CPU's property test runs them all).
func GradKernelCases() []Case { return gradCases(true) }

// gradCases are GradSignatureCases, with likeWhole their like B only.
func gradCases(likeWhole bool) []Case {
	all := []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32}
	float := all[:1]
	var cs []Case
	seed := uint64(500)
	for _, c := range []struct {
		op     sbp.Op
		shapes []tensor.Shape
		dtypes []tensor.DType
	}{
		{sbp.BroadcastLike(tensor.Shape{4, 3}), []tensor.Shape{{1, 3}, {4, 3}}, all},
		{sbp.BroadcastLike(tensor.Shape{2, 5, 3}), []tensor.Shape{{3}, {2, 5, 3}}, all},
		{sbp.BroadcastLike(tensor.Shape{6, 4}), []tensor.Shape{{1, 1}, {6, 4}}, float},
		{sbp.ReduceSumLike(tensor.Shape{1, 3}), []tensor.Shape{{4, 3}, {1, 3}}, all},
		{sbp.ReduceSumLike(tensor.Shape{3}), []tensor.Shape{{2, 5, 3}, {3}}, float},
		{sbp.MatmulT(false, true), []tensor.Shape{{5, 3}, {4, 3}}, all},
		{sbp.MatmulT(true, false), []tensor.Shape{{3, 5}, {3, 4}}, all},
		{sbp.MatmulT(true, true), []tensor.Shape{{3, 5}, {4, 3}}, float},
		{sbp.MatmulT(false, true), []tensor.Shape{{2, 5, 3}, {4, 3}}, float},
		{sbp.BroadcastMatmulGradB(), []tensor.Shape{{2, 5, 3}, {2, 5, 4}}, all},
		{sbp.UnaryGrad(tensor.Exp), []tensor.Shape{{4, 3}, {4, 3}}, float},
		{sbp.UnaryGrad(tensor.Tanh), []tensor.Shape{{5, 2}, {5, 2}}, float},
		{sbp.UnaryGrad(tensor.Relu), []tensor.Shape{{3, 4}, {3, 4}}, float},
		{sbp.SoftmaxGrad(-1), []tensor.Shape{{4, 6}, {4, 6}}, float},
		{sbp.SoftmaxGrad(0), []tensor.Shape{{5, 3}, {5, 3}}, float},
	} {
		var keep func(sbp.Signature) bool
		if name := c.op.Name(); likeWhole && (name == "broadcast_like" || name == "reduce_sum_like") {
			keep = func(sg sbp.Signature) bool { return sg.In[1] == sbp.B }
		}
		for _, dt := range c.dtypes {
			seed++
			cs = append(cs, signatureCasesWhere(seed, c.op, c.shapes, dt, keep)...)
		}
	}
	return cs
}
