//go:build js

package shaders

import (
	"github.com/oliverbestmann/webgpu/wgpu"
)

// Adapters lists the browser's adapter (navigator.gpu offers one).
func Adapters() ([]AdapterInfo, error) {
	_, a, err := requestAdapter()
	if err != nil {
		return nil, nil
	}
	return []AdapterInfo{infoOf(a)}, nil
}

// requestAdapter awaits navigator.gpu.requestAdapter(). It blocks on a
// promise, so callers must be on a goroutine of their own, never inside a
// js.FuncOf callback.
func requestAdapter() (*wgpu.Instance, *wgpu.Adapter, error) {
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

// scoped runs fn. In the browser WebGPU reports validation errors
// asynchronously; the binding's Try calls do not return them (see the
// note in the closing report: error scopes are the next step here).
func (d *Device) scoped(fn func() error) error {
	if d.lost != nil {
		return d.lost
	}
	return fn()
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
