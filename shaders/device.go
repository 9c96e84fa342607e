package shaders

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// Options tune Open.
type Options struct {
	// MaxBindingBytes caps the bytes one storage binding may cover, below
	// the adapter's maxStorageBufferBindingSize (0: the adapter's limit).
	// Tests lower it to drive the chunked paths with small tensors.
	MaxBindingBytes uint64
	// MaxWorkgroupsPerDimension caps the workgroups of one dispatch
	// dimension below the adapter's (0: the adapter's limit). Tests lower
	// it to drive 2-D grids with small tensors.
	MaxWorkgroupsPerDimension uint32
	// Tuning picks how work is shared among invocations (TuneAuto: by the
	// adapter's type). Tests set it to run both ways on one adapter.
	Tuning Tuning
	// NoSubgroups keeps the reduce kernel's lanes in the workgroup-memory
	// tree even where the device has subgroup operations. Tests set it
	// to run both on one adapter.
	NoSubgroups bool
	// Threads is how many threads a CPU adapter runs workgroups on (0:
	// the host's CPUs), which sizes its invocations (see Device.itemsPer).
	// Tests lower it to drive long invocations with small tensors.
	Threads int
}

// Tuning is how a device shares out work among invocations.
type Tuning int

const (
	// TuneAuto picks TuneCPUOpBound for SwiftShader, TuneCPU for another
	// CPU adapter (lavapipe) and TuneGPU otherwise.
	TuneAuto Tuning = iota
	// TuneGPU: up to 32 invocations share an output and combine in a
	// shared-memory workgroup tree; small elementwise dispatches take an
	// item per invocation.
	TuneGPU
	// TuneCPU: every invocation folds alone, with no barrier; an output's
	// reduced elements are cut into chunks when there are too few outputs
	// to keep the threads busy, and a second dispatch combines the
	// chunks. A CPU runs a workgroup's lanes as SIMD vectors, one vector
	// after another, and a barrier makes it save and resume every vector
	// (sum [64,256,1024] to [1,256,1] on lavapipe: 2 lanes per output with
	// a tree took 24 ms, 1 lane without 14 ms on a single thread). Every
	// elementwise invocation takes 8 to 32 items (see Device.itemsPer).
	// An operand of up to 64 KiB is read from a uniform binding, which
	// lavapipe gathers, where it reads storage lane by lane
	// (elementwise.uniformLoads).
	TuneCPU
	// TuneCPUOpBound is TuneCPU for a CPU adapter whose time goes on
	// memory operations more than on memory traffic, so that an access
	// pattern that jumps through memory costs it little: SwiftShader
	// (its copy kernel moves 2.6 GB/s here, lavapipe's 8.4). A broadcast
	// binary op then walks (binary_walk.wgsl): a lane holds the
	// operand that is fixed along a dim in registers and steps down that
	// dim, one load of the other operand per step (SwiftShader, add
	// [64,1,4096]+[1,4,4096]: 1.16 to 1.24 of the copy kernel's rate
	// walking, 0.73 to 0.86 in 4 × 4 blocks; lavapipe, whose prefetchers
	// lose lanes that jump a row at every step, took 2.5 to 3 times as
	// long walking).
	TuneCPUOpBound
)

// ParseTuning names a tuning as the CLI's --tune and the page's tune
// field do: "auto" (or ""), "gpu" or "cpu"; its error names the word and
// the choices, for the caller to prefix with its flag or field.
func ParseTuning(name string) (Tuning, error) {
	switch name {
	case "auto", "":
		return TuneAuto, nil
	case "gpu":
		return TuneGPU, nil
	case "cpu":
		return TuneCPU, nil
	}
	return TuneAuto, fmt.Errorf("%q: choose auto, gpu or cpu", name)
}

// String names t as ParseTuning reads it ("opbound" for
// TuneCPUOpBound, which only TuneAuto picks).
func (t Tuning) String() string {
	switch t {
	case TuneGPU:
		return "gpu"
	case TuneCPU:
		return "cpu"
	case TuneCPUOpBound:
		return "opbound"
	}
	return "auto"
}

// Subgroups reports whether d's reductions end their lanes' trees in
// subgroup shuffles: the device has subgroup operations and d's Options
// did not turn them off.
func (d *Device) Subgroups() bool { return d.subgroups }

// Tuning is how d shares out work: its Options' tuning, or TuneAuto's
// choice for its adapter.
func (d *Device) Tuning() Tuning { return d.tuning }

// onCPU reports whether d's adapter runs on the CPU (TuneCPU or
// TuneCPUOpBound).
func (d *Device) onCPU() bool { return d.tuning == TuneCPU || d.tuning == TuneCPUOpBound }

// autoTuning is TuneAuto's choice for an adapter.
func autoTuning(info AdapterInfo) Tuning {
	switch {
	case info.Type != cpuAdapter:
		return TuneGPU
	case strings.Contains(strings.ToLower(info.Name+" "+info.Driver), "swiftshader"):
		return TuneCPUOpBound
	}
	return TuneCPU
}

// AdapterInfo describes a WebGPU adapter: what `stridelab devices` lists.
type AdapterInfo struct {
	Name    string `json:"name"`
	Backend string `json:"backend"` // vulkan, metal, d3d12, opengl, webgpu
	Type    string `json:"type"`    // discrete GPU, integrated GPU, CPU, unknown
	Driver  string `json:"driver,omitempty"`
	Limits  Limits `json:"limits"`
}

// Limits are the adapter limits the kernels depend on.
type Limits struct {
	MaxStorageBufferBindingSize       uint64 `json:"max_storage_buffer_binding_size"`
	MaxBufferSize                     uint64 `json:"max_buffer_size"`
	MaxComputeWorkgroupsPerDimension  uint32 `json:"max_compute_workgroups_per_dimension"`
	MaxComputeInvocationsPerWorkgroup uint32 `json:"max_compute_invocations_per_workgroup"`
	MaxComputeWorkgroupStorageSize    uint32 `json:"max_compute_workgroup_storage_size"`
	MinStorageBufferOffsetAlignment   uint32 `json:"min_storage_buffer_offset_alignment"`
}

func limitsOf(l wgpu.Limits) Limits {
	return Limits{
		MaxStorageBufferBindingSize:       l.MaxStorageBufferBindingSize,
		MaxBufferSize:                     l.MaxBufferSize,
		MaxComputeWorkgroupsPerDimension:  l.MaxComputeWorkgroupsPerDimension,
		MaxComputeInvocationsPerWorkgroup: l.MaxComputeInvocationsPerWorkgroup,
		MaxComputeWorkgroupStorageSize:    l.MaxComputeWorkgroupStorageSize,
		MinStorageBufferOffsetAlignment:   l.MinStorageBufferOffsetAlignment,
	}
}

func infoOf(a *wgpu.Adapter) AdapterInfo {
	i := a.GetInfo()
	name := i.Device
	if name == "" {
		name = i.Description
	}
	if name == "" {
		name = "browser WebGPU adapter"
	}
	return AdapterInfo{Name: name, Backend: i.BackendType.String(), Type: i.AdapterType.String(),
		Driver: i.Description, Limits: limitsOf(a.GetLimits())}
}

// cpuAdapter is AdapterInfo.Type of an adapter that runs on the CPU.
var cpuAdapter = wgpu.AdapterTypeCPU.String()

// Device is one WebGPU device with its compiled pipelines, under the
// limits and tuning of its Options. A process normally opens one; its
// methods are safe for concurrent use (calls are serialized).
type Device struct {
	*hub
	limits    Limits                               // what the device was created with, MaxBindingBytes applied
	pipelines map[programKey]*wgpu.ComputePipeline // the pipelines this Device has run, from hub.compiled
	closed    atomic.Bool
	tuning    Tuning // TuneGPU or TuneCPU
	threads   int    // TuneCPU: the adapter's threads
	// subgroups: the reduce kernel's lanes end in subgroup shuffles (the
	// device has them and Options.NoSubgroups is not set).
	subgroups bool
}

// hub is the WebGPU device that Open requests and every Device derived
// from it shares (Device.derive): the adapter, the queue, and the
// pipelines compiled for it, each compiled once whichever Device asks
// first. Calls on any of its Devices are serialized by mu.
type hub struct {
	mu       sync.Mutex
	instance *wgpu.Instance
	adapter  *wgpu.Adapter
	device   *wgpu.Device
	queue    *wgpu.Queue
	info     AdapterInfo
	own      Limits // what the device reports
	compiled map[programKey]*wgpu.ComputePipeline
	lost     atomic.Pointer[error] // why the device is gone (lostErr)
	plat     platform
	users    int // open Devices on it: the last Close releases it
	// subgroups: the device has subgroup operations (requestDevice asks
	// for them where the adapter has them).
	subgroups bool
}

// Open requests the default adapter and a device with the adapter's own
// limits where it can (see requestDevice), so large tensors fit.
func Open(opts Options) (*Device, error) {
	instance, adapter, err := requestAdapter()
	if err != nil {
		return nil, err
	}
	h := &hub{instance: instance, adapter: adapter, info: browserInfo(infoOf(adapter)), compiled: map[programKey]*wgpu.ComputePipeline{}}
	device, limits, subgroups, err := requestDevice(adapter, h.markLost)
	if err != nil {
		adapter.Release()
		instance.Release()
		return nil, &Error{Op: "open " + h.info.Name, Err: err}
	}
	h.device, h.queue, h.own, h.subgroups = device, device.GetQueue(), limits, subgroups
	h.attach()
	return h.open(opts), nil
}

// derive returns a Device on d's WebGPU device under opts (its caps
// applied to the device's own limits, its tuning and threads): a
// pipeline either of them compiles serves both, so tests that run the
// same kernels under several limits and tunings compile each once. It
// must be closed like an opened Device; the WebGPU device is released
// when the last of them closes.
func (d *Device) derive(opts Options) *Device {
	d.hub.mu.Lock()
	defer d.hub.mu.Unlock()
	return d.hub.open(opts)
}

// open returns a Device on h under opts.
func (h *hub) open(opts Options) *Device {
	h.users++
	d := &Device{hub: h, limits: h.own, pipelines: map[programKey]*wgpu.ComputePipeline{}}
	if opts.MaxBindingBytes > 0 && opts.MaxBindingBytes < d.limits.MaxStorageBufferBindingSize {
		d.limits.MaxStorageBufferBindingSize = opts.MaxBindingBytes
	}
	if n := opts.MaxWorkgroupsPerDimension; n > 0 && n < d.limits.MaxComputeWorkgroupsPerDimension {
		d.limits.MaxComputeWorkgroupsPerDimension = n
	}
	if d.limits.MaxComputeWorkgroupsPerDimension == 0 {
		d.limits.MaxComputeWorkgroupsPerDimension = 65535
	}
	if d.limits.MinStorageBufferOffsetAlignment == 0 {
		d.limits.MinStorageBufferOffsetAlignment = 256
	}
	d.tuning, d.threads = opts.Tuning, opts.Threads
	d.subgroups = h.subgroups && !opts.NoSubgroups
	if d.threads <= 0 {
		d.threads = hostThreads()
	}
	if d.tuning == TuneAuto {
		d.tuning = autoTuning(d.info)
	}
	return d
}

// Info describes the device's adapter.
func (d *Device) Info() AdapterInfo { return d.info }

// Limits returns the limits the device works under.
func (d *Device) Limits() Limits { return d.limits }

// errClosed is what a closed Device's calls fail with.
var errClosed = fmt.Errorf("%w: the device was closed", ErrDeviceLost)

// Close releases the device. Later calls fail.
func (d *Device) Close() {
	h := d.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if d.closed.Swap(true) {
		return
	}
	if h.users--; h.users > 0 {
		return
	}
	h.markLost(errClosed)
	for k, p := range h.compiled {
		p.Release()
		delete(h.compiled, k)
	}
	h.queue.Release()
	h.device.Release()
	h.adapter.Release()
	h.instance.Release()
	h.device = nil
}

// markLost records why the device is gone; the first reason stays (a
// device that Close released reports its release as a loss too).
func (h *hub) markLost(err error) { h.lost.CompareAndSwap(nil, &err) }

// lostErr is why the device is gone (lost, for all its Devices, or
// closed), or nil while it works.
func (d *Device) lostErr() error {
	if p := d.lost.Load(); p != nil {
		return *p
	}
	if d.closed.Load() {
		return errClosed
	}
	return nil
}

// pipeline returns the compiled pipeline of k, compiling it on the
// device's first use (by d or a Device that shares its hub).
func (d *Device) pipeline(k programKey) (*wgpu.ComputePipeline, error) {
	if p, ok := d.pipelines[k]; ok {
		return p, nil
	}
	if p, ok := d.compiled[k]; ok {
		d.pipelines[k] = p
		return p, nil
	}
	src, err := k.source()
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("%s/%v/rank%d/red%d/vec%d/%s", k.kernel, k.dtype, k.rank, k.red, k.vec, k.op)
	var p *wgpu.ComputePipeline
	err = d.scoped(func() error {
		module, err := d.device.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label: label, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src}})
		if err != nil {
			return fmt.Errorf("compiling %s: %w", label, err)
		}
		defer module.Release()
		p, err = d.device.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: "main"},
		})
		if err != nil {
			return fmt.Errorf("pipeline %s: %w", label, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.compiled[k], d.pipelines[k] = p, p
	return p, nil
}
