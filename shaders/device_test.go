package shaders

import "testing"

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
