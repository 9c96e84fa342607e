//go:build !js

package shaders

import (
	"runtime"

	"github.com/oliverbestmann/webgpu/wgpu"
)

func init() { wgpu.SetLogLevel(wgpu.LogLevelOff) } // errors come back as values

// platform is the native side of a Device: wgpu-native needs nothing more.
type platform struct{}

// hostThreads is how many threads a CPU adapter (lavapipe) runs
// workgroups on: one per CPU.
func hostThreads() int { return runtime.NumCPU() }

// attach has nothing to record natively: wgpu-native reports errors
// synchronously to the Try calls.
func (d *Device) attach() {}

func browserInfo(i AdapterInfo) AdapterInfo { return i }

// Adapters lists every adapter of every backend.
func Adapters() ([]AdapterInfo, error) {
	inst := wgpu.CreateInstance(nil)
	defer inst.Release()
	var out []AdapterInfo
	for _, a := range inst.EnumerateAdapters(nil) {
		out = append(out, infoOf(a))
		a.Release()
	}
	return out, nil
}

// requestAdapter returns the preferred adapter and its instance, which
// must outlive it. The instance takes no descriptor: the binding (v1.0.0)
// leaves fields of the instance extras it mallocs uninitialized, which
// crashes wgpu-native at random; without one every backend is tried,
// Vulkan, Metal and D3D12 before OpenGL.
func requestAdapter() (*wgpu.Instance, *wgpu.Adapter, error) {
	inst := wgpu.CreateInstance(nil)
	a, err := inst.RequestAdapter(&wgpu.RequestAdapterOptions{PowerPreference: wgpu.PowerPreferenceHighPerformance})
	if err != nil || a == nil {
		inst.Release()
		return nil, nil, ErrNoAdapter
	}
	return inst, a, nil
}

// scoped runs fn, whose WebGPU calls are the Try variants: wgpu-native
// reports their errors synchronously through error scopes.
func (d *Device) scoped(fn func() error) error {
	if d.lost != nil {
		return d.lost
	}
	if err := fn(); err != nil {
		return err
	}
	return d.lost
}

// mapRead maps buf for reading once the queued work is done and returns its bytes.
func (d *Device) mapRead(buf *wgpu.Buffer, size uint64) ([]byte, error) {
	var status wgpu.MapAsyncStatus
	if err := buf.TryMapAsync(wgpu.MapModeRead, 0, size, func(s wgpu.MapAsyncStatus) { status = s }); err != nil {
		return nil, err
	}
	d.device.Poll(true, nil)
	if status != wgpu.MapAsyncStatusSuccess {
		return nil, fmtMapStatus(status)
	}
	return buf.GetMappedRange(0, uint(size)), nil
}

// wait blocks until the device has finished the submitted work.
func (d *Device) wait() error {
	d.device.Poll(true, nil)
	return nil
}
