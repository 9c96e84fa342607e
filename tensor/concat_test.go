package tensor

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestConcat(t *testing.T) {
	a, _ := Arange(Int32, Shape{2, 2, 3})
	b, _ := Arange(Int32, Shape{2, 1, 3})
	c, _ := Zeros(Int32, Shape{2, 0, 3})
	bt, _ := Arange(Int32, Shape{3, 1, 2})
	bp, _ := bt.Permute([]int{2, 1, 0}) // a non-contiguous [2 1 3] view
	for _, tc := range []struct {
		axis  int
		parts []Tensor
		want  string
	}{
		{1, []Tensor{a, b, c}, "[2 3 3] [0 1 2 3 4 5 0 1 2 6 7 8 9 10 11 3 4 5]"},
		{1, []Tensor{b, bp}, "[2 2 3] [0 1 2 0 2 4 3 4 5 1 3 5]"},
		{0, []Tensor{b, b}, "[4 1 3] [0 1 2 3 4 5 0 1 2 3 4 5]"},
		{2, []Tensor{a}, "[2 2 3] [0 1 2 3 4 5 6 7 8 9 10 11]"},
	} {
		got, err := Concat(tc.axis, tc.parts...)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(got.Shape(), got.Float64s()); s != tc.want {
			t.Errorf("concat along %d: %s, want %s", tc.axis, s, tc.want)
		}
	}
	f, _ := Arange(Float32, Shape{2, 1, 3})
	for _, tc := range []struct {
		axis  int
		parts []Tensor
		says  string
	}{
		{3, []Tensor{a, b}, "axis 3 is outside a 3-dim tensor"},
		{1, []Tensor{a, f}, "part 1 is float32 but part 0 is int32"},
		{0, []Tensor{a, b}, "part 1 has size 1 in dim 1 but part 0 has 2"},
		{0, nil, "no parts"},
	} {
		_, err := Concat(tc.axis, tc.parts...)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("concat along %d: error %v, want one saying %q", tc.axis, err, tc.says)
		}
	}
}

// Narrow keeps a range of one dim: the part split work takes, and the
// inverse of Concat.
func TestNarrow(t *testing.T) {
	x, _ := Arange(Int32, Shape{2, 5, 3})
	a, _ := x.Narrow(1, 0, 2)
	b, _ := x.Narrow(1, 2, 5)
	if got := fmt.Sprint(a.Shape(), b.Shape(), a.Layout().Strides(), b.Layout().Base()); got != "[2 2 3] [2 3 3] [15 3 1] 6" {
		t.Errorf("narrow [2 5 3] along 1 at 2: %s", got)
	}
	back, _ := Concat(1, a, b)
	if fmt.Sprint(back.Float64s()) != fmt.Sprint(x.Float64s()) {
		t.Errorf("concat of the narrowed parts is %v", back.Float64s())
	}
	if _, err := x.Narrow(3, 0, 1); err == nil || !errors.Is(err, ErrIndex) || !strings.Contains(err.Error(), "has 3 dims") {
		t.Errorf("narrow along axis 3 of a 3-dim tensor: %v", err)
	}
}
