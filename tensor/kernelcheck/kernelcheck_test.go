package kernelcheck

import (
	"maps"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func TestReads(t *testing.T) {
	sliced, _ := tensor.Contiguous(tensor.Shape{4, 5})
	sliced, err := sliced.Slice(tensor.Interval(1, 4, 2), tensor.Point(2))
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Output, err error) Output {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, c := range []struct {
		name string
		out  Output
		idx  []int
		want map[string]int
	}{
		// expand [3,1] to [3,4]: out[2,3] reads x[2] (stride 0 on dim 1).
		{"expand", run(Expand(tensor.Shape{3, 1}, []int{3, 4})), []int{2, 3}, map[string]int{"x": 2}},
		// repeat [3] twice: out[4] is x[1].
		{"repeat", run(Repeat(tensor.Shape{3}, []int{2})), []int{4}, map[string]int{"x": 1}},
		// [4,5][1:4:2, 2]: out[1] is x[3,2], offset 17.
		{"view", run(View(tensor.Shape{4, 5}, sliced)), []int{1}, map[string]int{"x": 17}},
		// [3,1] + [1,4]: out[2,3] reads a[2] and b[3].
		{"binary", run(Binary(tensor.Shape{3, 1}, tensor.Shape{1, 4})), []int{2, 3}, map[string]int{"a": 2, "b": 3}},
	} {
		if got := c.out.Reads(c.idx); !maps.Equal(got, c.want) {
			t.Errorf("%s: Reads(%v) = %v, want %v", c.name, c.idx, got, c.want)
		}
	}
	// sum [2,3] to [1,3]: out[0,1] is x[0,1] + x[1,1] = 1 + 4.
	if got := run(Reduce(tensor.Sum, tensor.Shape{2, 3}, tensor.Shape{1, 3})).At([]int{0, 1}); got != 5 {
		t.Errorf("sum [2,3] to [1,3]: out[0,1] = %v, want 5", got)
	}
}

func TestInexactRefused(t *testing.T) {
	if _, err := Binary(tensor.Shape{4096}, tensor.Shape{4096, 1}); err == nil || !strings.Contains(err.Error(), "exact") {
		t.Errorf("Binary of 4096 by 4096 elements: %v, want a refusal", err)
	}
	if _, err := Reduce(tensor.Sum, tensor.Shape{8192}, tensor.Shape{1}); err == nil || !strings.Contains(err.Error(), "exact") {
		t.Errorf("Sum of 8192 offsets: %v, want a refusal", err)
	}
}
