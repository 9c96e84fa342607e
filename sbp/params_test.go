package sbp_test

import (
	"reflect"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

func TestParams(t *testing.T) {
	cases := []struct {
		op   sbp.Op
		want sbp.OpParams
	}{
		{sbp.Binary(tensor.Eq), sbp.OpParams{Name: "eq", Binary: tensor.Eq}},
		{sbp.Reduce(tensor.MaxAll, tensor.Shape{1, 3}), sbp.OpParams{Name: "reduce", Reduce: tensor.MaxAll, To: tensor.Shape{1, 3}}},
		{sbp.Scale(-0.5), sbp.OpParams{Name: "scale", Factor: -0.5}},
		{sbp.Expand([]int{2, -1}), sbp.OpParams{Name: "expand", Size: []int{2, -1}}},
		{sbp.Repeat([]int{2, 1}), sbp.OpParams{Name: "repeat", Times: []int{2, 1}}},
		{sbp.RepeatGrad([]int{2, 3}, tensor.Shape{4}), sbp.OpParams{Name: "repeat_grad", Times: []int{2, 3}, To: tensor.Shape{4}}},
		{sbp.Matmul(), sbp.OpParams{Name: "matmul"}},
		{sbp.Transpose(), sbp.OpParams{Name: "transpose"}},
		{sbp.Unary(tensor.Rsqrt), sbp.OpParams{Name: "rsqrt", Unary: tensor.Rsqrt}},
		{sbp.Softmax(-1), sbp.OpParams{Name: "softmax", Axis: -1}},
		{sbp.Mean(tensor.Shape{4, 6, 5}, tensor.Shape{1, 6, 1}), sbp.OpParams{Name: "mean", Reduce: tensor.Sum, To: tensor.Shape{1, 6, 1}, Count: 20}},
	}
	for _, c := range cases {
		if got := sbp.Params(c.op); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Params(%v) = %+v, want %+v", c.op, got, c.want)
		}
	}
}
