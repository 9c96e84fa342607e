//go:build !js

package shaders

import (
	"fmt"
	"os"
	"runtime"

	"github.com/oliverbestmann/webgpu/wgpu"
)

func init() {
	wgpu.SetLogLevel(wgpu.LogLevelOff) // errors come back as values
	quietWaylandProbe()
}

// quietWaylandProbe keeps wgpu-native's look for a Wayland display from
// printing "error: XDG_RUNTIME_DIR is invalid or not set" on every
// instance where there is no session (a container, CI, a root shell):
// libwayland prints that when it has no runtime dir to find its socket
// in, but stays quiet for an absolute socket path that does not exist.
// Either way there is no Wayland display to find; compute needs none.
func quietWaylandProbe() {
	if os.Getenv("XDG_RUNTIME_DIR") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && os.Getenv("WAYLAND_SOCKET") == "" {
		os.Setenv("WAYLAND_DISPLAY", "/nonexistent/stridelab-no-wayland-session")
	}
}

// platform is the native side of a Device: wgpu-native needs nothing more.
type platform struct{}

// hostThreads is how many threads a CPU adapter (lavapipe) runs
// workgroups on: one per CPU.
func hostThreads() int { return runtime.NumCPU() }

// attach has nothing to record natively: wgpu-native reports errors
// synchronously to the Try calls.
func (h *hub) attach() {}

func browserInfo(i AdapterInfo) AdapterInfo { return i }

// primaryBackends are wgpu's first-class backends, Vulkan, Metal and D3D12
// (WGPUInstanceBackend_Primary less the browser's). OpenGL is tried only
// when none of them offers an adapter: it adds nothing where Vulkan runs
// (lavapipe is the same driver either way).
const primaryBackends wgpu.InstanceBackend = 1<<0 | 1<<2 | 1<<3

// instances returns an instance of the primary backends, then one of all
// backends: the order adapters are looked for in.
func instances() []func() *wgpu.Instance {
	return []func() *wgpu.Instance{
		func() *wgpu.Instance { return wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: primaryBackends}) },
		func() *wgpu.Instance {
			return wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: wgpu.InstanceBackendAll})
		},
	}
}

// Adapters lists the adapters of the primary backends, or of every backend
// when those offer none.
func Adapters() ([]AdapterInfo, error) {
	for _, create := range instances() {
		inst := create()
		var out []AdapterInfo
		for _, a := range inst.EnumerateAdapters(nil) {
			out = append(out, infoOf(a))
			a.Release()
		}
		inst.Release()
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, nil
}

// requestAdapter returns the preferred adapter and its instance, which
// must outlive it.
func requestAdapter() (*wgpu.Instance, *wgpu.Adapter, error) {
	for _, create := range instances() {
		inst := create()
		a, err := inst.RequestAdapter(&wgpu.RequestAdapterOptions{PowerPreference: wgpu.PowerPreferenceHighPerformance})
		if err == nil && a != nil {
			return inst, a, nil
		}
		inst.Release()
	}
	return nil, nil, ErrNoAdapter
}

// subgroupFeatures are the names an adapter may give subgroup
// operations: WebGPU's, and wgpu-native's own (what lavapipe reports
// through wgpu-native v29).
var subgroupFeatures = []wgpu.FeatureName{wgpu.FeatureNameSubgroups, wgpu.NativeFeatureSubgroup}

// enableSubgroups is the line a module using subgroup builtins starts
// with: none for naga, which takes them once the device has the feature.
const enableSubgroups = ""

// requestDevice asks for a device with the adapter's own limits, so that
// large tensors fit, and with subgroup operations where the adapter has
// them, and turns the device's loss into d's error (onLost). It returns
// the limits the device reports and whether it has subgroups.
func requestDevice(adapter *wgpu.Adapter, onLost func(error)) (*wgpu.Device, Limits, bool, error) {
	al := adapter.GetLimits()
	var features []wgpu.FeatureName
	for _, f := range subgroupFeatures {
		if adapter.HasFeature(f) {
			features = []wgpu.FeatureName{f}
			break
		}
	}
	dev, err := adapter.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "stridelab",
		RequiredLimits:   &al,
		RequiredFeatures: features,
		DeviceLostCallback: func(reason wgpu.DeviceLostReason, msg string) {
			onLost(fmt.Errorf("%w (%v): %s", ErrDeviceLost, reason, msg))
		},
	})
	if err != nil {
		return nil, Limits{}, false, err
	}
	return dev, limitsOf(dev.GetLimits()), features != nil, nil
}

// scoped runs fn, whose WebGPU calls are the Try variants: wgpu-native
// reports their errors synchronously through error scopes.
func (d *Device) scoped(fn func() error) error {
	if err := d.lostErr(); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	return d.lostErr()
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
