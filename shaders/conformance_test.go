package shaders

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/conform"
)

// openOrSkip opens the default device; without an adapter the test skips,
// unless STRIDELAB_REQUIRE_GPU=1 (make test sets it: lavapipe is installed).
func openOrSkip(t *testing.T, opts Options) *Device {
	t.Helper()
	d, err := Open(opts)
	if errors.Is(err, ErrNoAdapter) && os.Getenv("STRIDELAB_REQUIRE_GPU") != "1" {
		t.Skip("no WebGPU adapter (install mesa-vulkan-drivers for lavapipe)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func TestConformance(t *testing.T) {
	d := openOrSkip(t, Options{})
	t.Logf("adapter: %+v", d.Info())
	cases := conform.Cases(conform.Options{Sizes: conform.DefaultSizes(), Huge: !testing.Short()})
	check(t, d, cases)
}

// The adapter here is a CPU (TuneCPU); TuneGPU, what a real GPU gets,
// shares out work differently (an item per invocation in small
// dispatches, lanes combined in a workgroup tree): it runs the sweep at
// sizes that hit workgroup tails too.
func TestGPUTuningAgreesWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{Tuning: TuneGPU})
	check(t, d, conform.Cases(conform.Options{Sizes: []int{0, 1, 2, 5, 17, 65, 257}}))
}

// check runs cases on d and reports the first 20 failures.
func check(t *testing.T, d *Device, cases []conform.Case) {
	t.Helper()
	fails := conform.Check(NewBackend(d), tensor.CPU{}, cases)
	for i, f := range fails {
		if i == 20 {
			t.Errorf("... and %d more", len(fails)-20)
			break
		}
		t.Error(f)
	}
	t.Logf("%d cases, %d failures", len(cases), len(fails))
}

// With a binding limit of 4 KiB every output past 1024 elements is split
// into chunks, each binding only the window of its inputs it reads
// (halving a chunk until its windows fit), and every reduction whose input
// or output passes 4 KiB is split in halves along a dim.
func TestChunkedKernelsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 4096})
	check(t, d, conform.Cases(conform.Options{Sizes: []int{700}}))
}

// With a binding limit of 512 bytes every reduction of more than 128
// elements (input span or output) is split in halves, recursively, along
// kept and reduced dims, and the halves' results are concatenated or
// combined.
func TestSplitReductionsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 512})
	var cases []conform.Case
	for _, c := range conform.Cases(conform.Options{Sizes: []int{65, 700}}) {
		if strings.HasPrefix(c.Name, "sum") || strings.HasPrefix(c.Name, "max") || strings.HasPrefix(c.Name, "min") {
			cases = append(cases, c)
		}
	}
	check(t, d, cases)
}

// A reduction of 4000 bytes under a 1 KiB binding limit runs in pieces;
// work that cannot be cut small enough fails with an error naming the size
// and the limit.
func TestTooLargeIsSplitOrAClearError(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 1024})
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{1000})
	sum, err := NewBackend(d).Reduce(tensor.Sum, x, tensor.Shape{1})
	if err != nil || sum.At(0) != 999*1000/2 {
		t.Fatalf("sum of 0..999 under a 1024-byte binding limit: %v, %v", sum.Float64s(), err)
	}
	tiny := openOrSkip(t, Options{MaxBindingBytes: 8})
	_, err = NewBackend(tiny).Materialize(x)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "bytes") || !strings.Contains(err.Error(), "allows 8") {
		t.Fatalf("a copy under an 8-byte binding limit: %v", err)
	}
	t.Log(err)
}

// With at most 3 workgroups per dimension every dispatch of more than 3
// workgroups runs on a 2-D grid, and items past the grid loop: the paths
// a tensor past 65535·256 items takes on a real device.
func TestTwoDimensionalGridsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxWorkgroupsPerDimension: 3})
	cases := conform.Cases(conform.Options{Sizes: []int{700}})
	check(t, d, cases)
}
