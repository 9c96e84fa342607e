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

func TestMeasureDeviceTimesKernelAndCopies(t *testing.T) {
	dev, err := shaders.Open(shaders.Options{})
	if errors.Is(err, shaders.ErrNoAdapter) && os.Getenv("STRIDELAB_REQUIRE_GPU") != "1" {
		t.Skip("no WebGPU adapter")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	g := shaders.NewBackend(dev)
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
