package sbp

import (
	"errors"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// Softmax along d lists S on every other dim and B, never S(d) nor a
// partial, whichever end d is counted from; OneFlow's list is the same
// splits (its GetSbp: every axis but the normalised one), then all-B.
func TestSoftmaxSignatures(t *testing.T) {
	for _, c := range []struct {
		axis  int
		shape tensor.Shape
		want  string
	}{
		{1, tensor.Shape{4, 6}, "S(0) -> S(0); B -> B"},
		{-1, tensor.Shape{4, 6}, "S(0) -> S(0); B -> B"},
		{0, tensor.Shape{4, 6}, "S(1) -> S(1); B -> B"},
		{-2, tensor.Shape{4, 6}, "S(1) -> S(1); B -> B"},
		{1, tensor.Shape{2, 4, 6}, "S(0) -> S(0); S(2) -> S(2); B -> B"},
		{-1, tensor.Shape{5}, "B -> B"},
		{2, tensor.Shape{4, 6}, ""},
		{0, tensor.Shape{}, ""},
	} {
		op := Softmax(c.axis)
		in := []tensor.Shape{c.shape}
		if got := sigList(op.Signatures(in)); got != c.want {
			t.Errorf("%v %v: signatures %q, want %q", op, c.shape, got, c.want)
		}
		want := c.want
		if want == "" {
			want = "B -> B"
		}
		if got := sigList(EagerSignatures(op, in)); got != want {
			t.Errorf("%v %v: OneFlow's list %q, want %q", op, c.shape, got, want)
		}
	}
}

// A split along the softmax's dim and every partial are refused saying
// why; a bad dim names the statement's op, the shape and the range.
func TestSoftmaxErrors(t *testing.T) {
	checkInfer(t, []inferCase{
		{Softmax(-1), []tensor.Shape{{4, 6}}, "S(0)", "[4 6] S(0)", nil},
		{Softmax(-1), []tensor.Shape{{4, 6}}, "B", "[4 6] B", nil},
		{Softmax(-1), []tensor.Shape{{4, 6}}, "S(1)", "softmax [4 6] along -1 with S(1): no signature takes S(1): softmax along 1 needs whole lines along dim 1: each device would normalise over its own part", ErrSignature},
		{Softmax(0), []tensor.Shape{{4, 6}}, "S(0)", "box it to B or to S on another dim first, or write the softmax out of max, sub, exp, sum and div", ErrSignature},
		{Softmax(1), []tensor.Shape{{4, 6}}, "P", "softmax of a sum of parts is not made of the parts' softmaxes", ErrSignature},
		{Softmax(1), []tensor.Shape{{4, 6}}, "P(max)", "a P(max) part may hold anything below the whole", ErrSignature},
		{Softmax(2), []tensor.Shape{{4, 6}}, "B", "softmax [4 6] along 2: the tensor has 2 dims, so the dim is -2 to 1 (negative counts from the end), not 2", ErrShape},
		{Softmax(-3), []tensor.Shape{{4, 6}}, "B", "not -3", ErrShape},
		{Softmax(0), []tensor.Shape{{}}, "B", "softmax [] along 0: a scalar has no dim to normalise along", ErrShape},
	})
	if got := Softmax(-1).String(); got != "softmax along -1" || Softmax(-1).Arity() != 1 {
		t.Errorf("String %q", got)
	}
	x, _ := tensor.FromSlice(tensor.Shape{2}, []int32{1, 2})
	if _, err := Softmax(0).Local(tensor.CPU{}, []tensor.Tensor{x}, tensor.Shape{2}); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("softmax of int32 on a device: %v, want tensor.ErrDType", err)
	}
}
