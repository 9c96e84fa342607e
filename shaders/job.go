package shaders

import (
	"github.com/oliverbestmann/webgpu/wgpu"
)

// job is one backend call made ready on the device: its inputs uploaded,
// its output buffer allocated, every dispatch's uniforms written and bind
// group built. Encoding it costs no allocation or transfer, so a result
// takes one encode and one readback, and a benchmark can encode it many
// times to time the kernel alone.
type job struct {
	steps []step
	out   *wgpu.Buffer // holds the result from offset 0
	owned []*wgpu.Buffer
}

// step is one dispatch with its bound resources, or (pipe == nil) a
// copyBufferToBuffer of size bytes from src to out.
type step struct {
	pipe  *wgpu.ComputePipeline
	group *wgpu.BindGroup
	x, y  uint32
	src   *wgpu.Buffer
	size  uint64
}

// newJob builds the steps of dispatches writing out; owned buffers (the
// inputs and out) are destroyed with the job.
func (d *Device) newJob(dispatches []dispatch, out *wgpu.Buffer, owned ...*wgpu.Buffer) (*job, error) {
	j := &job{out: out, owned: owned}
	for _, dp := range dispatches {
		if err := j.add(d, dp); err != nil {
			j.release()
			return nil, err
		}
	}
	return j, nil
}

func (j *job) add(d *Device, dp dispatch) error {
	pipe, err := d.pipeline(dp.key)
	if err != nil {
		return err
	}
	x, y := d.grid(dp.workgrps)
	uni, err := d.newBuffer("params", paramsSize, wgpu.BufferUsageUniform|wgpu.BufferUsageCopyDst)
	if err != nil {
		return err
	}
	j.owned = append(j.owned, uni)
	if err := d.queue.TryWriteBuffer(uni, 0, dp.params.bytes()); err != nil {
		return err
	}
	entries := []wgpu.BindGroupEntry{{Binding: 0, Buffer: uni, Size: paramsSize}}
	for i, b := range dp.storage {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i + 1), Buffer: b.buf, Offset: b.offset, Size: b.size})
	}
	layout := pipe.GetBindGroupLayout(0)
	group, err := d.device.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: layout, Entries: entries})
	layout.Release()
	if err != nil {
		return err
	}
	j.steps = append(j.steps, step{pipe: pipe, group: group, x: x, y: y})
	return nil
}

// encode records the job reps times: its dispatches in one compute pass
// (WebGPU orders dispatches that write a buffer another one reads), its
// buffer copies after it.
func (j *job) encode(enc *wgpu.CommandEncoder, reps int) error {
	pass := enc.BeginComputePass(nil)
	for range reps {
		for _, s := range j.steps {
			if s.pipe != nil {
				pass.SetPipeline(s.pipe)
				pass.SetBindGroup(0, s.group, nil)
				pass.DispatchWorkgroups(s.x, s.y, 1)
			}
		}
	}
	err := pass.TryEnd()
	pass.Release() // wgpu-native wants the pass released before Submit
	if err != nil {
		return err
	}
	for range reps {
		for _, s := range j.steps {
			if s.pipe == nil {
				if err := enc.TryCopyBufferToBuffer(s.src, 0, j.out, 0, s.size); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (j *job) release() {
	for _, s := range j.steps {
		if s.group != nil {
			s.group.Release()
		}
	}
	freeAll(j.owned)
	j.steps, j.owned = nil, nil
}

// readback runs j reps times (0: not at all) and copies out[0:len(dst)] into dst with a single
// readback. dst is never empty: callers return empty outputs without
// touching the device.
func (d *Device) readback(j *job, reps int, dst []byte) error {
	encoder, err := d.device.TryCreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	defer encoder.Release()
	if err := j.encode(encoder, reps); err != nil {
		return err
	}
	size := roundUp16(uint64(len(dst)))
	staging, err := d.newBuffer("readback", size, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst)
	if err != nil {
		return err
	}
	defer free(staging)
	if err := encoder.TryCopyBufferToBuffer(j.out, 0, staging, 0, size); err != nil {
		return err
	}
	cmd, err := encoder.TryFinish(nil)
	if err != nil {
		return err
	}
	d.queue.Submit(cmd)
	cmd.Release()
	data, err := d.mapRead(staging, size)
	if err != nil {
		return err
	}
	copy(dst, data)
	return staging.TryUnmap()
}
