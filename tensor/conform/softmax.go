package conform

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/tensor"
)

// softmaxTol bounds softmax on float32: a GPU sums the exponentials in
// f32 in its own order and WGSL's exp and division are a few ulp, where
// the CPU works in float64 and rounds once; every output lies in [0, 1],
// so tensor.Tolerance is an absolute bound here, some 80 roundings.
const softmaxTol = tensor.Tolerance

// softmaxCases runs softmax on every layout of n elements per swept dim
// (layouts: contiguous, permuted, expanded either way, sliced backwards)
// along its first and its last dim, so the line is the inner, contiguous
// dim, a strided outer one, a broadcast (stride 0) one, and of every swept
// length, 0 and 1 included; and the integer dtypes' refusal, which every
// backend must give.
func softmaxCases(dt tensor.DType, n int) []Case {
	var cs []Case
	for _, in := range layouts(dt, n) {
		for _, axis := range []int{0, 1} {
			cs = append(cs, Case{Name: fmt.Sprintf("softmax %v %s along %d", dt, in.name, axis), Tol: softmaxTol,
				Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(in.t, axis) }})
		}
		if dt != tensor.Float32 {
			break // one refusal per size is enough
		}
	}
	return cs
}

// softmaxRankCases runs softmax along the first, a middle and the last
// dim of each view of rankCases (contiguous, permuted, expanded, reversed)
// of rank 1 to 6; rank 0 (no dim) is an error everywhere.
func softmaxRankCases(name string, x tensor.Tensor) []Case {
	rank := x.Layout().Rank()
	if rank == 0 {
		return []Case{{Name: "softmax " + name + " (no dim: an error)", Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(x, 0) }}}
	}
	var cs []Case
	for _, axis := range uniqueInts(0, rank/2, rank-1) {
		cs = append(cs, Case{Name: fmt.Sprintf("softmax %s along %d", name, axis), Tol: softmaxTol,
			Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(x, axis) }})
	}
	return cs
}

// uniqueInts is v without repeats, in order.
func uniqueInts(v ...int) []int {
	var out []int
	for _, x := range v {
		seen := false
		for _, y := range out {
			seen = seen || x == y
		}
		if !seen {
			out = append(out, x)
		}
	}
	return out
}

// softmaxSpecialCases runs softmax on lines of IEEE 754's special values,
// each line along the last dim and, transposed, along the first: a NaN
// (the whole line NaN), a −Inf beside finite values (0 there), a line all
// −Inf and one holding +Inf (NaN, as torch), values past exp's overflow
// (88, 100, MaxFloat32: the max is subtracted first), ±0, and a line of
// one element (1, or NaN for a NaN or an infinity).
func softmaxSpecialCases() []Case {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	lines := [][]float32{
		{1, nan, 2, 3, -1},
		{-inf, 1, 2, -inf, 0},
		{-inf, -inf, -inf, -inf, -inf},
		{1, inf, 2, -inf, 0},
		{88, 89, 100, 1, -100},
		{math.MaxFloat32, math.MaxFloat32, 0, -math.MaxFloat32, 1},
		{float32(math.Copysign(0, -1)), 0, 1e-3, -1e-3, 20},
	}
	var flat []float32
	for _, l := range lines {
		flat = append(flat, l...)
	}
	x, _ := tensor.FromSlice(tensor.Shape{len(lines), len(lines[0])}, flat)
	xt := must(x.Permute([]int{1, 0}))
	col, _ := tensor.FromSlice(tensor.Shape{8, 1}, []float32{-inf, inf, nan, 0, 3, -2, math.MaxFloat32, 1e-3})
	return []Case{
		{Name: "softmax float32 special values along the last dim", Tol: softmaxTol, Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(x, 1) }},
		{Name: "softmax float32 special values along the first dim", Tol: softmaxTol, Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(xt, 0) }},
		{Name: "softmax float32 special values along a dim of 1", Tol: softmaxTol, Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(col, 1) }},
		{Name: "softmax float32 along dim 2 of a rank-2 tensor (an error)", Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Softmax(x, 2) }},
	}
}
