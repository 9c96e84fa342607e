package bench

import (
	"errors"
	"os"
	"testing"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
)

// smallCases are the benchmark's ops at test sizes.
var smallCases = []Case{
	{Name: "expand [64,1,256]->[64,4,256]", Op: "expand", In: tensor.Shape{64, 1, 256}, Arg: []int{64, 4, 256}},
	{Name: "repeat [64,256] by [2,2]", Op: "repeat", In: tensor.Shape{64, 256}, Arg: []int{2, 2}},
	{Name: "sum [16,64,256] to [1,64,1]", Op: "sum", In: tensor.Shape{16, 64, 256}, Arg: []int{1, 64, 1}},
	{Name: "add [64,1,256]+[1,4,256]", Op: "add", In: tensor.Shape{64, 1, 256}, B: tensor.Shape{1, 4, 256}},
}

// openOrSkip opens a device with opts, closed when t ends, or skips t
// where there is no adapter (unless STRIDELAB_REQUIRE_GPU=1).
func openOrSkip(t *testing.T, opts shaders.Options) *shaders.GPU {
	t.Helper()
	dev, err := shaders.Open(opts)
	if errors.Is(err, shaders.ErrNoAdapter) && os.Getenv("STRIDELAB_REQUIRE_GPU") != "1" {
		t.Skip("no WebGPU adapter")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dev.Close)
	return shaders.NewBackend(dev)
}

func TestMeasureDeviceTimesKernelAndCopies(t *testing.T) {
	g := openOrSkip(t, shaders.Options{})
	for _, c := range smallCases {
		r, err := MeasureDevice(g, c, DeviceOptions{Rounds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Kernel <= 0 || r.CopyKernel <= 0 || r.BufferCopy <= 0 || r.Ratio <= 0 || r.Bytes != c.Bytes() {
			t.Errorf("%s: %+v", c.Name, r)
		}
	}
}

// TestEveryCaseFillsAGPU prepares every bench case (the full sizes: at
// the browser's a reduction keeps 16 loads a lane and stops short) under
// a discrete GPU's tuning on whatever adapter is here and checks that it
// dispatches at least FillInvocations invocations wherever its operands
// and output hold that many elements: the counts `stridelab bench
// --backend gpu` shows as "invocations on a GPU" (which also checks
// their outputs; TestGPUTuningAgreesWithTheCPU in shaders checks these
// kernels' values at every edge size).
func TestEveryCaseFillsAGPU(t *testing.T) {
	g := openOrSkip(t, shaders.Options{Tuning: shaders.TuneGPU})
	for _, c := range Cases() {
		inv, dispatches, err := dispatched(g, c, false)
		if err != nil {
			t.Fatal(err)
		}
		if c.Elements() >= FillInvocations && inv < FillInvocations {
			t.Errorf("%s (%d elements): %d invocations in %d dispatches under TuneGPU, want at least %d", c.Name, c.Elements(), inv, dispatches, FillInvocations)
		}
	}
}
