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

// Device is one WebGPU device with its compiled pipelines. A process
// normally opens one; its methods are safe for concurrent use (calls are
// serialized).
type Device struct {
	mu        sync.Mutex
	instance  *wgpu.Instance
	adapter   *wgpu.Adapter
	device    *wgpu.Device
	queue     *wgpu.Queue
	info      AdapterInfo
	limits    Limits // what the device was created with, MaxBindingBytes applied
	pipelines map[programKey]*wgpu.ComputePipeline
	lost      atomic.Pointer[error] // why the device is gone (lostErr)
	plat      platform
	tuning    Tuning // TuneGPU or TuneCPU
	threads   int    // TuneCPU: the adapter's threads
}

// Open requests the default adapter and a device with the adapter's own
// limits where it can (see requestDevice), so large tensors fit.
func Open(opts Options) (*Device, error) {
	instance, adapter, err := requestAdapter()
	if err != nil {
		return nil, err
	}
	d := &Device{instance: instance, adapter: adapter, info: browserInfo(infoOf(adapter)), pipelines: map[programKey]*wgpu.ComputePipeline{}}
	device, limits, err := requestDevice(adapter, d.markLost)
	if err != nil {
		return nil, &Error{Op: "open " + d.info.Name, Err: err}
	}
	d.device, d.queue, d.limits = device, device.GetQueue(), limits
	d.attach()
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
	if d.threads <= 0 {
		d.threads = hostThreads()
	}
	if d.tuning == TuneAuto {
		d.tuning = autoTuning(d.info)
	}
	return d, nil
}

// Info describes the device's adapter.
func (d *Device) Info() AdapterInfo { return d.info }

// Limits returns the limits the device works under.
func (d *Device) Limits() Limits { return d.limits }

// Close releases the device. Later calls fail.
func (d *Device) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.device == nil {
		return
	}
	d.markLost(fmt.Errorf("%w: the device was closed", ErrDeviceLost))
	for k, p := range d.pipelines {
		p.Release()
		delete(d.pipelines, k)
	}
	d.queue.Release()
	d.device.Release()
	d.adapter.Release()
	d.instance.Release()
	d.device = nil
}

// markLost records why the device is gone; the first reason stays (a
// device that Close released reports its release as a loss too).
func (d *Device) markLost(err error) { d.lost.CompareAndSwap(nil, &err) }

// lostErr is why the device is gone, or nil while it works.
func (d *Device) lostErr() error {
	if p := d.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// pipeline returns the compiled pipeline of k, compiling it on first use.
func (d *Device) pipeline(k programKey) (*wgpu.ComputePipeline, error) {
	if p, ok := d.pipelines[k]; ok {
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
	d.pipelines[k] = p
	return p, nil
}
