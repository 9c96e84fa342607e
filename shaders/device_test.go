package shaders

import (
	"errors"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func TestAutoTuning(t *testing.T) {
	for _, c := range []struct {
		info AdapterInfo
		want Tuning
	}{
		{AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: cpuAdapter}, TuneCPU},
		{AdapterInfo{Name: "google swiftshader", Type: cpuAdapter}, TuneCPUOpBound},
		{AdapterInfo{Name: "SwiftShader Device (LLVM 10.0.0)", Type: cpuAdapter}, TuneCPUOpBound},
		{AdapterInfo{Name: "browser WebGPU adapter", Driver: "Google SwiftShader", Type: cpuAdapter}, TuneCPUOpBound},
		{AdapterInfo{Name: "NVIDIA H100", Type: "discrete GPU"}, TuneGPU},
	} {
		if got := autoTuning(c.info); got != c.want {
			t.Errorf("%+v: tuning %d, want %d", c.info, got, c.want)
		}
	}
}

// TestDeviceGetsTheAdapterLimits: the device is created with the adapter's
// own limits (not WebGPU's defaults), as the device itself reports them.
func TestDeviceGetsTheAdapterLimits(t *testing.T) {
	d := openOrSkip(t, Options{})
	if got, want := d.Limits(), d.Info().Limits; got != want {
		t.Errorf("device limits %+v, adapter limits %+v", got, want)
	}
	if d.Limits().MaxBufferSize <= 256<<20 && d.Info().Type == cpuAdapter {
		t.Logf("note: %s offers only WebGPU's default maxBufferSize", d.Info().Name)
	}
}

// TestResultsPastTheDeviceAreRefused: a result that fits the host's limit
// but not the device's maxBufferSize, and one past the host's limit, are
// refused before anything is allocated or uploaded.
func TestResultsPastTheDeviceAreRefused(t *testing.T) {
	d := openOrSkip(t, Options{})
	g := NewBackend(d)
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{1})
	elems := int(d.Limits().MaxBufferSize/4) + 1
	prev := tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 62, Source: "test"})
	_, err := tensor.Expand(g, x, []int{elems})
	tensor.SetMaxBytes(prev)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the device's maxBufferSize is") {
		t.Errorf("expand [1] to [%d] on a device of maxBufferSize %d: %v", elems, d.Limits().MaxBufferSize, err)
	}
	prev = tensor.SetMaxBytes(tensor.Limit{Bytes: 64, Source: "test"})
	defer tensor.SetMaxBytes(prev)
	for name, run := range map[string]func() (tensor.Tensor, error){
		"repeat": func() (tensor.Tensor, error) { return g.Repeat(x, []int{17}) },
		"binary": func() (tensor.Tensor, error) {
			a, _ := tensor.Arange(tensor.Float32, tensor.Shape{5, 1})
			b, _ := tensor.Arange(tensor.Float32, tensor.Shape{1, 5})
			return g.Binary(tensor.Add, a, b)
		},
		"materialize": func() (tensor.Tensor, error) { v, _ := x.Expand([]int{20}); return g.Materialize(v) },
	} {
		if _, err := run(); !errors.Is(err, tensor.ErrTooLarge) || !strings.Contains(err.Error(), "the limit is 64 B (test)") {
			t.Errorf("%s past a 64-byte limit on the GPU: %v", name, err)
		}
	}
}

// Devices derived from one share its pipelines, each under its own
// limits; closing one leaves the others working.
func TestDerivedDevicesSharePipelines(t *testing.T) {
	a := openOrSkip(t, Options{MaxBindingBytes: 4096})
	b := openOrSkip(t, Options{Tuning: TuneGPU})
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{5, 3})
	xt, _ := x.Permute([]int{1, 0})
	for _, d := range []*Device{a, b} {
		if _, err := NewBackend(d).Materialize(xt); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.pipelines) != 1 || len(b.pipelines) != 1 {
		t.Fatalf("pipelines run: %d and %d, want 1 each", len(a.pipelines), len(b.pipelines))
	}
	for k, p := range a.pipelines {
		if b.pipelines[k] != p {
			t.Errorf("%+v compiled twice", k)
		}
	}
	if a.Limits().MaxStorageBufferBindingSize != 4096 || b.Limits().MaxStorageBufferBindingSize == 4096 {
		t.Errorf("binding limits %d and %d, want 4096 and the device's", a.Limits().MaxStorageBufferBindingSize, b.Limits().MaxStorageBufferBindingSize)
	}
	a.Close()
	if _, err := NewBackend(a).Materialize(xt); !errors.Is(err, ErrDeviceLost) {
		t.Errorf("a call on a closed Device: %v, want ErrDeviceLost", err)
	}
	if _, err := NewBackend(b).Materialize(xt); err != nil {
		t.Errorf("a call on the other after the first closed: %v", err)
	}
}
