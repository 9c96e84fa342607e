package tensor

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSoftmaxValues: CPU.Softmax on contiguous, permuted, sliced and
// expanded views of rank 1 to 3 along every dim equals the definition
// written out index by index with At (float64, no max subtracted: the
// inputs are small), each line sums to 1, and the input is unchanged.
func TestSoftmaxValues(t *testing.T) {
	base, _ := Arange(Float32, Shape{3, 4, 5})
	scaled, _ := CPU{}.Binary(Div, base, mustScalar(t, 7))
	perm, _ := scaled.Permute([]int{2, 0, 1})
	slice, _ := scaled.Slice(Interval(1, 3, 1), Stepped(-2), All())
	col, _ := Arange(Float32, Shape{4, 1})
	expanded, _ := col.Expand([]int{4, 6})
	vec, _ := Arange(Float32, Shape{9})
	for _, x := range []Tensor{scaled, perm, slice, expanded, vec} {
		before := fmt.Sprint(x.Float64s())
		for axis := range x.Layout().Rank() {
			got, err := CPU{}.Softmax(x, axis)
			if err != nil {
				t.Fatalf("softmax %v along %d: %v", x.Layout(), axis, err)
			}
			want := softmaxModel(x, axis)
			g := got.Float64s()
			for i := range want {
				if math.Abs(g[i]-want[i]) > 1e-6 {
					t.Fatalf("softmax %v along %d: element %d = %v, want %v", x.Layout(), axis, i, g[i], want[i])
				}
			}
			sums, _ := CPU{}.Reduce(Sum, got, keepOne(got.Shape(), axis))
			for i, s := range sums.Float64s() {
				if math.Abs(s-1) > 1e-6 {
					t.Errorf("softmax %v along %d: line %d sums to %v, want 1", x.Layout(), axis, i, s)
				}
			}
		}
		if after := fmt.Sprint(x.Float64s()); after != before {
			t.Errorf("softmax changed its input %v", x.Layout())
		}
	}
}

func mustScalar(t *testing.T, v float32) Tensor {
	s, err := FromSlice(Shape{}, []float32{v})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// keepOne is shape with dim axis made 1.
func keepOne(shape Shape, axis int) Shape {
	s := shape.Clone()
	s[axis] = 1
	return s
}

// softmaxModel is the definition, index by index: every output index i
// divides exp(x[i]) by the sum of exp over i's line along axis.
func softmaxModel(x Tensor, axis int) []float64 {
	shape := x.Shape()
	n, _ := shape.NumElements()
	out := make([]float64, n)
	idx := make([]int, len(shape))
	for i := range n {
		rem := i
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d], rem = rem%shape[d], rem/shape[d]
		}
		line := append([]int{}, idx...)
		var sum float64
		for j := range shape[axis] {
			line[axis] = j
			sum += math.Exp(x.At(line...))
		}
		out[i] = math.Exp(x.At(idx...)) / sum
	}
	return out
}

// TestSoftmaxSpecialValues: each line as torch.softmax gives it (torch
// 1.13 on the CPU): large values do not overflow (the max is subtracted),
// a −Inf beside finite values is 0, and a NaN, a line all −Inf or a +Inf
// make the whole line NaN; a line of one element is 1.
func TestSoftmaxSpecialValues(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, c := range []struct {
		in   []float32
		want []float64
	}{
		{[]float32{1, 1}, []float64{0.5, 0.5}},
		{[]float32{1000, 1000}, []float64{0.5, 0.5}},
		{[]float32{1, -inf}, []float64{1, 0}},
		{[]float32{3}, []float64{1}},
		{[]float32{1, nan}, []float64{math.NaN(), math.NaN()}},
		{[]float32{-inf, -inf}, []float64{math.NaN(), math.NaN()}},
		{[]float32{1, inf}, []float64{math.NaN(), math.NaN()}},
		{[]float32{inf, inf}, []float64{math.NaN(), math.NaN()}},
	} {
		x, _ := FromSlice(Shape{len(c.in)}, c.in)
		got, err := CPU{}.Softmax(x, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got.Float64s() {
			if !AgreeValues(g, c.want[i], 0) {
				t.Errorf("softmax %v = %v, want %v", c.in, got.Float64s(), c.want)
				break
			}
		}
	}
	empty, _ := Empty(Float32, Shape{2, 0, 3})
	for axis := range 3 {
		got, err := CPU{}.Softmax(empty, axis)
		if err != nil || !got.Shape().Equal(Shape{2, 0, 3}) {
			t.Errorf("softmax of [2 0 3] along %d = %v, %v; want an empty [2 0 3]", axis, got.Shape(), err)
		}
	}
}

// TestSoftmaxErrors: each bad input is one error naming softmax, the
// shape and the axis, with its sentinel; nothing panics.
func TestSoftmaxErrors(t *testing.T) {
	f, _ := Arange(Float32, Shape{2, 3})
	i, _ := Arange(Int32, Shape{2, 3})
	s, _ := Arange(Float32, Shape{})
	for _, c := range []struct {
		x    Tensor
		axis int
		kind error
		says string
	}{
		{i, 1, ErrDType, "softmax [2 3] along 1: softmax takes float32 tensors, not int32"},
		{f, 2, ErrIndex, "softmax [2 3] along 2: the tensor has 2 dims, so the axis is 0 to 1"},
		{f, -1, ErrIndex, "the axis is 0 to 1"},
		{s, 0, ErrIndex, "a scalar has no dim"},
		{Tensor{}, 0, ErrShape, "empty Tensor value"},
	} {
		_, err := CPU{}.Softmax(c.x, c.axis)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("softmax %v along %d: error %v, want %v saying %q", c.x.Shape(), c.axis, err, c.kind, c.says)
		}
	}
}
