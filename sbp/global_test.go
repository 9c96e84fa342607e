package sbp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// A global tensor built from per-rank locals gathers to their
// concatenation (S) or their sum (P), and locals of the wrong shape are
// refused with the shard they should have been.
func TestFromLocals(t *testing.T) {
	p, _ := Devices(3)
	mk := func(shape tensor.Shape, v ...int32) tensor.Tensor {
		x, err := tensor.FromSlice(shape, v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	g, err := FromLocals(tensor.CPU{}, tensor.Shape{5}, p, NdSbp{S(0)}, []tensor.Tensor{mk(tensor.Shape{2}, 1, 2), mk(tensor.Shape{2}, 3, 4), mk(tensor.Shape{1}, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if full, _ := g.Full(); fmt.Sprint(full.Float64s()) != "[1 2 3 4 5]" {
		t.Errorf("S(0) locals gather to %v", full.Float64s())
	}
	g, err = FromLocals(tensor.CPU{}, tensor.Shape{2}, p, NdSbp{PSum}, []tensor.Tensor{mk(tensor.Shape{2}, 1, 2), mk(tensor.Shape{2}, 10, 20), mk(tensor.Shape{2}, 100, 200)})
	if err != nil {
		t.Fatal(err)
	}
	if full, _ := g.Full(); fmt.Sprint(full.Float64s()) != "[111 222]" {
		t.Errorf("P(sum) locals gather to %v", full.Float64s())
	}
	_, err = FromLocals(tensor.CPU{}, tensor.Shape{5}, p, NdSbp{S(0)}, []tensor.Tensor{mk(tensor.Shape{2}, 1, 2), mk(tensor.Shape{1}, 3), mk(tensor.Shape{2}, 4, 5)})
	if err == nil || !errors.Is(err, ErrShape) || !containsAll(err.Error(), "device 1", "[2]..[4]", "must be [2], not [1]") {
		t.Errorf("wrong local shape: %v", err)
	}
	if _, err = FromLocals(tensor.CPU{}, tensor.Shape{5}, p, NdSbp{S(0)}, nil); err == nil || !containsAll(err.Error(), "3 devices but 0 locals") {
		t.Errorf("no locals: %v", err)
	}
}

func TestApplyRefusesMismatchedInputs(t *testing.T) {
	two, _ := Devices(2)
	three, _ := Devices(3)
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{4})
	i, _ := tensor.Arange(tensor.Int32, tensor.Shape{4})
	a, _ := Scatter(tensor.CPU{}, x, two, NdSbp{B})
	b, _ := Scatter(tensor.CPU{}, x, three, NdSbp{B})
	c, _ := Scatter(tensor.CPU{}, i, two, NdSbp{B})
	for _, tc := range []struct {
		in   []*Global
		says string
	}{
		{[]*Global{a, b}, "input 1 is on cpu:[0, 1, 2] but input 0 on cpu:[0, 1]"},
		{[]*Global{a, c}, "input 1 is int32 but input 0 is float32"},
		{[]*Global{a}, "takes 2 inputs, got 1"},
	} {
		if _, _, err := Apply(Binary(tensor.Add), tc.in...); err == nil || !containsAll(err.Error(), tc.says) {
			t.Errorf("add: error %v, want one saying %q", err, tc.says)
		}
	}
}
