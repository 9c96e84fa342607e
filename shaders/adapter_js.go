//go:build js

package shaders

import (
	"errors"
	"fmt"
	"syscall/js"

	"github.com/oliverbestmann/webgpu/jsx"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// The binding (v1.36.0) keeps the GPUAdapter and GPUDevice JS objects
// unexported, and its Try calls cannot see WebGPU's asynchronous errors.
// This hook records the last adapter and device the page requested, so the
// runtime can read the adapter's info and wrap every call in error scopes.
func init() {
	js.Global().Call("eval", `(() => {
  if (!globalThis.navigator || !navigator.gpu || globalThis.__stridelab) return;
  globalThis.__stridelab = {};
  const requestAdapter = GPU.prototype.requestAdapter;
  GPU.prototype.requestAdapter = async function (...args) {
    const a = await requestAdapter.apply(this, args);
    globalThis.__stridelab.adapter = a;
    return a;
  };
  const requestDevice = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const d = await requestDevice.apply(this, args);
    globalThis.__stridelab.device = d;
    return d;
  };
})()`)
}

// platform is the browser's side of a Device: its GPUDevice.
type platform struct{ device js.Value }

// hooked returns the object the init hook recorded under name, or
// undefined.
func hooked(name string) js.Value {
	h := js.Global().Get("__stridelab")
	if h.IsUndefined() {
		return h
	}
	return h.Get(name)
}

// attach records the GPUDevice just requested and turns its loss into
// h.lost: later calls fail with ErrDeviceLost and the browser's reason.
func (h *hub) attach() {
	h.plat.device = hooked("device")
	if h.plat.device.IsUndefined() {
		return
	}
	var onLost js.Func
	onLost = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := args[0].Get("message").String()
		h.markLost(fmt.Errorf("%w: %s", ErrDeviceLost, msg))
		onLost.Release()
		return nil
	})
	h.plat.device.Get("lost").Call("then", onLost)
}

// hostThreads is how many threads a CPU adapter (SwiftShader) runs
// workgroups on: navigator.hardwareConcurrency, one per logical CPU.
func hostThreads() int {
	if n := js.Global().Get("navigator").Get("hardwareConcurrency"); n.Type() == js.TypeNumber && n.Int() > 0 {
		return n.Int()
	}
	return 4
}

// browserInfo fills what the binding's GetInfo leaves empty in the
// browser from GPUAdapter.info.
func browserInfo(i AdapterInfo) AdapterInfo {
	a := hooked("adapter")
	if a.IsUndefined() || a.Get("info").IsUndefined() {
		return i
	}
	info := a.Get("info")
	str := func(k string) string {
		if v := info.Get(k); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	if s := str("description"); s != "" {
		i.Name = s
	} else if s := str("vendor") + " " + str("architecture"); s != " " {
		i.Name = s
	}
	i.Backend, i.Driver = "webgpu", str("vendor")
	// Chromium's software fallback (SwiftShader) says so in
	// isFallbackAdapter (older versions: architecture "swiftshader").
	if info.Get("isFallbackAdapter").Truthy() || str("architecture") == "swiftshader" {
		i.Type = cpuAdapter
	}
	return i
}

// Adapters lists the browser's adapter (navigator.gpu offers one).
func Adapters() ([]AdapterInfo, error) {
	_, a, err := requestAdapter()
	if err != nil {
		return nil, nil
	}
	return []AdapterInfo{browserInfo(infoOf(a))}, nil
}

// requestAdapter awaits navigator.gpu.requestAdapter(). It blocks on a
// promise, so callers must be on a goroutine of their own, never inside a
// js.FuncOf callback.
func requestAdapter() (*wgpu.Instance, *wgpu.Adapter, error) {
	if js.Global().Get("navigator").Get("gpu").IsUndefined() {
		return nil, nil, ErrNoAdapter
	}
	inst := wgpu.CreateInstance(nil)
	if inst == nil {
		return nil, nil, ErrNoAdapter
	}
	a, err := inst.RequestAdapter(nil)
	if err != nil || a == nil {
		return nil, nil, ErrNoAdapter
	}
	return inst, a, nil
}

// enableSubgroups is the line a module using subgroup builtins starts
// with: a browser's WGSL needs the extension enabled.
const enableSubgroups = "enable subgroups;\n"

// requestDevice asks for a device with the adapter's own limits, and
// with the "subgroups" feature where the adapter has it, and returns the
// limits the device reports and whether it has subgroups. Its loss
// reaches the Device through attach (GPUDevice.lost), so onLost is not
// needed here.
func requestDevice(adapter *wgpu.Adapter, _ func(error)) (*wgpu.Device, Limits, bool, error) {
	al := adapter.GetLimits()
	var features []wgpu.FeatureName
	if adapter.HasFeature(wgpu.FeatureNameSubgroups) {
		features = []wgpu.FeatureName{wgpu.FeatureNameSubgroups}
	}
	dev, err := adapter.RequestDevice(&wgpu.DeviceDescriptor{Label: "stridelab", RequiredLimits: &al, RequiredFeatures: features})
	if err != nil {
		return nil, Limits{}, false, err
	}
	return dev, limitsOf(dev.GetLimits()), features != nil, nil
}

// scoped runs fn inside validation, out-of-memory and internal error
// scopes and awaits them: in the browser WebGPU reports errors
// asynchronously, and this is where they become Go errors. Scopes nest,
// so a scoped call may make scoped calls. Callers are on a goroutine.
func (d *Device) scoped(fn func() error) error {
	if err := d.lostErr(); err != nil {
		return err
	}
	dev := d.plat.device
	if dev.IsUndefined() {
		return fn()
	}
	for _, f := range []string{"internal", "out-of-memory", "validation"} {
		dev.Call("pushErrorScope", f)
	}
	err := fn()
	for range 3 {
		e, ok := jsx.Await(dev.Call("popErrorScope"))
		switch {
		case !ok && err == nil:
			err = errors.New("popping a WebGPU error scope failed")
		case ok && e.Truthy() && err == nil:
			err = fmt.Errorf("WebGPU: %s", e.Get("message").String())
		}
	}
	if err == nil {
		err = d.lostErr()
	}
	return err
}

// mapRead awaits buf.mapAsync and returns a copy of its bytes.
func (d *Device) mapRead(buf *wgpu.Buffer, size uint64) ([]byte, error) {
	var status wgpu.MapAsyncStatus
	if err := buf.TryMapAsync(wgpu.MapModeRead, 0, size, func(s wgpu.MapAsyncStatus) { status = s }); err != nil {
		return nil, err
	}
	if status != wgpu.MapAsyncStatusSuccess {
		return nil, fmtMapStatus(status)
	}
	return buf.GetMappedRange(0, uint(size)), nil
}

// wait awaits queue.onSubmittedWorkDone(): callers are on a goroutine.
func (d *Device) wait() error {
	d.queue.OnSubmittedWorkDone(func(wgpu.QueueWorkDoneStatus) {})
	return nil
}
