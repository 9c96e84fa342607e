package script

import (
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// TestCallOp: every op in the engines' Python (flow and torch share the
// spellings): the backward's ops, reductions to a scalar, the views with
// -1 resolved, softmax along its resolved dim, scale's int literals.
func TestCallOp(t *testing.T) {
	for _, c := range []struct {
		op    sbp.Op
		shape tensor.Shape
		want  string
	}{
		{sbp.Transpose(), tensor.Shape{4, 3}, "x.transpose(-2, -1)"},
		{sbp.Transpose(), tensor.Shape{2, 4, 3}, "x.transpose(-2, -1)"},
		{sbp.Permute([]int{2, 0, 1}), tensor.Shape{2, 4, 3}, "x.permute((2, 0, 1))"},
		{sbp.Permute([]int{0}), tensor.Shape{4}, "x.permute((0,))"},
		{sbp.Scale(-1), tensor.Shape{4}, "x * -1"},
		{sbp.Scale(0.25), tensor.Shape{4}, "x * 0.25"},
		{sbp.RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), tensor.Shape{2, 5, 3}, "x.reshape((2, 5, 3)).sum(dim=(0, 2)).reshape((5, 1))"},
		{sbp.RepeatGrad([]int{3, 2}, tensor.Shape{2, 7}), tensor.Shape{6, 14}, "x.reshape((3, 2, 2, 7)).sum(dim=(0, 2)).reshape((2, 7))"},
		{sbp.RepeatGrad([]int{1, 1}, tensor.Shape{2, 7}), tensor.Shape{2, 7}, "x.reshape((2, 7))"},
		{sbp.RepeatGrad([]int{2, 2}, tensor.Shape{}), tensor.Shape{2, 2}, "x.reshape((2, 2)).sum(dim=(0, 1)).reshape(())"},
		// a reduction to a scalar reshapes to (), which reshape() spells (())
		{sbp.Reduce(tensor.Sum, tensor.Shape{}), tensor.Shape{4, 3}, "x.sum(dim=(0, 1), keepdim=True).reshape(())"},
		{sbp.Reduce(tensor.MaxAll, tensor.Shape{}), tensor.Shape{}, "x.reshape(())"},
		{sbp.Reduce(tensor.Sum, tensor.Shape{1, 3}), tensor.Shape{4, 3}, "x.sum(dim=(0,), keepdim=True).reshape(1, 3)"},
		{sbp.Reduce(tensor.MinAll, tensor.Shape{4, 1}), tensor.Shape{4, 3}, "x.amin(dim=(1,), keepdim=True).reshape(4, 1)"},
		{sbp.Mean(tensor.Shape{4, 3}, tensor.Shape{1, 3}), tensor.Shape{4, 3}, "x.mean(dim=(0,), keepdim=True).reshape(1, 3)"},
		{sbp.Reshape([]int{2, -1}), tensor.Shape{4, 3}, "x.reshape(2, 6)"},
		{sbp.Reshape([]int{}), tensor.Shape{1, 1}, "x.reshape(())"},
		{sbp.Softmax(-1), tensor.Shape{4, 6}, "torch.softmax(x, dim=1)"},
		{sbp.Expand([]int{2, -1, 3}), tensor.Shape{4, 1}, "x.expand(2, -1, 3)"},
		{sbp.Repeat([]int{2, 1}), tensor.Shape{4, 3}, "x.repeat(2, 1)"},
		{sbp.Unary(tensor.Neg), tensor.Shape{4}, "-x"},
		{sbp.Unary(tensor.Step), tensor.Shape{4}, "(x > 0).to(x.dtype)"},
		{sbp.Unary(tensor.Rsqrt), tensor.Shape{4}, "torch.rsqrt(x)"},
	} {
		if got := callOp("torch", c.op, []string{"x"}, []tensor.Shape{c.shape}); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.op, c.shape, got, c.want)
		}
	}
	for _, c := range []struct {
		op   sbp.Op
		want string
	}{
		{sbp.Matmul(), "flow.matmul(a, b)"},
		{sbp.Binary(tensor.Sub), "a - b"},
		{sbp.Binary(tensor.Max), "flow.maximum(a, b)"},
		{sbp.Binary(tensor.Min), "flow.minimum(a, b)"},
		{sbp.Binary(tensor.Eq), "flow.eq(a, b).to(a.dtype)"},
	} {
		if got := callOp("flow", c.op, []string{"a", "b"}, []tensor.Shape{{4, 3}, {4, 3}}); got != c.want {
			t.Errorf("%v: %s, want %s", c.op, got, c.want)
		}
	}
}
