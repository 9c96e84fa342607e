package conform

import (
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// The CPU agrees with itself, and the suite's cases all build and run.
func TestCPUAgreesWithItself(t *testing.T) {
	cases := Cases(Options{Sizes: DefaultSizes()})
	if len(cases) < 1000 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, f := range Check(tensor.CPU{}, tensor.CPU{}, cases) {
		t.Error(f)
	}
}

// A backend with a planted bug fails the suite: it must catch wrong
// values, wrong shapes and spurious errors.
type brokenRepeat struct{ tensor.CPU }

func (brokenRepeat) Name() string { return "broken" }
func (b brokenRepeat) Repeat(src tensor.Tensor, times []int) (tensor.Tensor, error) {
	out, err := b.CPU.Repeat(src, times)
	if err != nil || out.NumElements() < 2 {
		return out, err
	}
	buf, _ := tensor.Buffer[float32](out)
	if buf != nil {
		buf[len(buf)-1]++
	}
	return out, nil
}

func TestSuiteCatchesAPlantedBug(t *testing.T) {
	fails := Check(brokenRepeat{}, tensor.CPU{}, Cases(Options{Sizes: []int{2, 5}}))
	if len(fails) == 0 {
		t.Fatal("a repeat that corrupts its last float32 element passed the suite")
	}
	for _, f := range fails {
		if !strings.HasPrefix(f.Case, "repeat") {
			t.Errorf("unexpected failure outside repeat: %v", f)
		}
	}
}

// sameBits answers only for whole contiguous tensors of one dtype and
// shape; every other pair goes to tensor.Agree.
func TestSameBits(t *testing.T) {
	a, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3})
	b, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3})
	c, _ := tensor.Arange(tensor.Float32, tensor.Shape{3, 2})
	i, _ := tensor.Arange(tensor.Int32, tensor.Shape{2, 3})
	big, _ := tensor.Arange(tensor.Float32, tensor.Shape{3, 3})
	rows, _ := big.Narrow(0, 0, 2) // a's values, but a view of a larger buffer
	tail, _ := big.Narrow(0, 1, 3)
	nan, _ := tensor.FromSlice(tensor.Shape{1}, []float32{float32(math.NaN())})
	for _, c := range []struct {
		name      string
		got, want tensor.Tensor
		same      bool
	}{
		{"equal", a, b, true},
		{"NaN and itself", nan, nan, true},
		{"other shape", a, c, false},
		{"other dtype", a, i, false},
		{"a view of part of a buffer", rows, a, false},
		{"an offset view", tail, a, false},
	} {
		if got := sameBits(c.got, c.want); got != c.same {
			t.Errorf("%s: sameBits %v, want %v", c.name, got, c.same)
		}
	}
}
