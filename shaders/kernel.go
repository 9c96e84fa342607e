package shaders

import (
	"errors"
	"fmt"
	"time"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stridelab/stridelab/tensor"
)

// Kernel is one GPU call held on the device for timing: its inputs
// resident in device buffers, its output allocated, its uniforms and bind
// groups built. Run executes only the kernel: no upload, no readback.
type Kernel struct {
	dev *Device
	job *job
}

// errCaptured stops a Prepare'd call at its second kernel.
var errCaptured = errors.New("shaders: Prepare takes a call that runs one kernel")

// Prepare makes the one kernel call that call makes on its backend ready
// to run repeatedly, without running it: e.g.
//
//	k, err := g.Prepare(func(be tensor.Backend) (tensor.Tensor, error) {
//		return be.Repeat(x, []int{2, 2})
//	})
func (g *GPU) Prepare(call func(tensor.Backend) (tensor.Tensor, error)) (*Kernel, error) {
	var j *job
	rec := &GPU{dev: g.dev, capture: &j}
	out, err := call(rec)
	if err != nil {
		if j != nil {
			g.dev.mu.Lock()
			j.release()
			g.dev.mu.Unlock()
		}
		return nil, err
	}
	out.Release()
	if j == nil {
		return nil, errors.New("shaders: Prepare: the call ran no GPU kernel (empty output?)")
	}
	return &Kernel{dev: g.dev, job: j}, nil
}

// PrepareCopy returns the plain copy kernel (wgsl/copy.wgsl: vec4 loads
// and stores, no index arithmetic) over bytes bytes between two device
// buffers: the throughput every data-movement kernel is measured against.
func (d *Device) PrepareCopy(bytes uint64) (*Kernel, error) {
	return d.prepareCopy(bytes, true)
}

// PrepareBufferCopy returns copyBufferToBuffer of bytes bytes: the
// device's own copy engine (on a software GPU, a memcpy).
func (d *Device) PrepareBufferCopy(bytes uint64) (*Kernel, error) {
	return d.prepareCopy(bytes, false)
}

func (d *Device) prepareCopy(bytes uint64, kernel bool) (*Kernel, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var j *job
	err := d.scoped(func() error {
		bytes = roundUp16(bytes)
		if kernel && bytes > d.limits.MaxStorageBufferBindingSize {
			return tooLarge("the copy kernel's binding", bytes, d.limits.MaxStorageBufferBindingSize)
		}
		usage := wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst
		src, err := d.newBuffer("copy source", bytes, usage)
		if err != nil {
			return err
		}
		dst, err := d.newBuffer("copy destination", bytes, usage)
		if err != nil {
			free(src)
			return err
		}
		if !kernel {
			j = &job{steps: []step{{src: src, size: bytes}}, out: dst, owned: []*wgpu.Buffer{src, dst}}
			return nil
		}
		dp := dispatch{
			key:      programKey{kernel: kernelCopy, dtype: tensor.Float32, vec: 4, a: loadVec4},
			storage:  []binding{{buf: src, size: bytes}, {buf: dst, size: bytes}},
			workgrps: (bytes/16 + workgroupSize - 1) / workgroupSize,
		}
		dp.params.count = uint32(bytes / 16)
		j, err = d.newJob([]dispatch{dp}, dst, src, dst)
		return err
	})
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("copy of %d bytes", bytes), err)
	}
	return &Kernel{dev: d, job: j}, nil
}

// Run executes the kernel reps times back to back in one submission and
// waits for the device to finish; it returns the wall time per run. With
// enough reps the submission and wait overheads fade from the figure.
func (k *Kernel) Run(reps int) (time.Duration, error) {
	d := k.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if k.job == nil {
		return 0, errors.New("shaders: Run on a released Kernel")
	}
	var elapsed time.Duration
	err := d.scoped(func() error {
		enc, err := d.device.TryCreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		if err := k.job.encode(enc, reps); err != nil {
			return err
		}
		cmd, err := enc.TryFinish(nil)
		if err != nil {
			return err
		}
		start := time.Now()
		d.queue.Submit(cmd)
		cmd.Release()
		err = d.wait()
		elapsed = time.Since(start)
		return err
	})
	return elapsed / time.Duration(max(reps, 1)), wrapErr("timing a kernel", err)
}

// Invocations is how many invocations one run of the kernel dispatches:
// workgroups × workgroup size, summed over its dispatches (a buffer copy
// dispatches none). A kernel with fewer than a GPU holds resident cannot
// fill it, whatever its speed on the machine that measured it.
func (k *Kernel) Invocations() uint64 {
	var n uint64
	if k.job != nil {
		for _, s := range k.job.steps {
			if s.pipe != nil {
				n += uint64(s.x) * uint64(s.y) * workgroupSize
			}
		}
	}
	return n
}

// Dispatches is how many dispatches one run of the kernel makes.
func (k *Kernel) Dispatches() int {
	n := 0
	if k.job != nil {
		for _, s := range k.job.steps {
			if s.pipe != nil {
				n++
			}
		}
	}
	return n
}

// ReadInto copies the kernel's output, as left by its last Run, into out
// (contiguous, of the call's dtype and size) with one readback.
func (k *Kernel) ReadInto(out tensor.Tensor) error {
	d := k.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if k.job == nil {
		return errors.New("shaders: ReadInto on a released Kernel")
	}
	dst := tensor.RawBytes(out)
	if len(dst) == 0 {
		return nil
	}
	return wrapErr("reading a kernel's output", d.scoped(func() error { return d.readback(k.job, 0, dst) }))
}

// Release frees the kernel's device buffers.
func (k *Kernel) Release() {
	k.dev.mu.Lock()
	defer k.dev.mu.Unlock()
	if k.job != nil {
		k.job.release()
		k.job = nil
	}
}
