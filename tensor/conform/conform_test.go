package conform

import (
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
