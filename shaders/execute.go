package shaders

import (
	"encoding/binary"
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// binding is a range of a buffer bound to one kernel slot.
type binding struct {
	buf          *wgpu.Buffer
	offset, size uint64
}

// dispatch is one kernel launch: its pipeline, Params, storage bindings in
// slot order (after the uniform at slot 0) and workgroup count.
type dispatch struct {
	key      programKey
	params   params
	storage  []binding
	workgrps uint64
}

// params is the Params struct of wgsl/prelude.wgsl.
type params struct {
	count, start, baseA, baseB uint32
	baseO                      uint32 // followed by three u32 of padding
	shape, aux                 [maxRank]uint32
	strideA, strideB, strideO  [maxRank]int32
}

const paramsSize = 32 + 5*4*maxRank

func (p *params) bytes() []byte {
	b := make([]byte, 0, paramsSize)
	for _, v := range []uint32{p.count, p.start, p.baseA, p.baseB, p.baseO, 0, 0, 0} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, arr := range [][maxRank]uint32{p.shape, p.aux} {
		for _, v := range arr {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	for _, arr := range [][maxRank]int32{p.strideA, p.strideB, p.strideO} {
		for _, v := range arr {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	return b
}

// grid splits n workgroups into a 2-D dispatch: WebGPU caps each dimension
// (maxComputeWorkgroupsPerDimension, 65535 by default), and item_index in
// the prelude rebuilds the linear index from (x, y).
func (d *Device) grid(n uint64) (x, y uint32, err error) {
	limit := uint64(d.limits.MaxComputeWorkgroupsPerDimension)
	if n <= limit {
		return uint32(n), 1, nil
	}
	rows := (n + limit - 1) / limit
	if rows > limit {
		return 0, 0, fmt.Errorf("%w: %d workgroups exceed %d×%d", ErrTooLarge, n, limit, limit)
	}
	return uint32(limit), uint32(rows), nil
}

// roundUp16 rounds a buffer size up to 16 bytes (and at least 16): vec4
// arrays are bound in 16-byte elements.
func roundUp16(n uint64) uint64 { return max(16, (n+15)&^15) }

func (d *Device) newBuffer(label string, size uint64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	size = roundUp16(size)
	if size > d.limits.MaxBufferSize {
		return nil, tooLarge(label, size, d.limits.MaxBufferSize)
	}
	return d.device.TryCreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: usage})
}

// upload copies data into a new storage buffer (WriteBuffer: in the browser
// mapped ranges are copies, so writing through them does nothing).
func (d *Device) upload(label string, data []byte) (*wgpu.Buffer, error) {
	buf, err := d.newBuffer(label, uint64(len(data)), wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst|wgpu.BufferUsageCopySrc)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if err := d.queue.TryWriteBuffer(buf, 0, data); err != nil {
			buf.Destroy()
			return nil, err
		}
	}
	return buf, nil
}

// run encodes the dispatches in one command buffer, then copies
// out[0:len(dst)] into dst with a single readback. dst is never empty:
// callers return empty outputs without touching the device.
func (d *Device) run(dispatches []dispatch, out *wgpu.Buffer, dst []byte) error {
	var garbage []*wgpu.Buffer
	defer func() {
		for _, b := range garbage {
			b.Destroy()
		}
	}()
	encoder, err := d.device.TryCreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	defer encoder.Release()
	pass := encoder.BeginComputePass(nil)
	for _, dp := range dispatches {
		pipe, err := d.pipeline(dp.key)
		if err != nil {
			pass.Release()
			return err
		}
		uni, err := d.newBuffer("params", paramsSize, wgpu.BufferUsageUniform|wgpu.BufferUsageCopyDst)
		if err != nil {
			pass.Release()
			return err
		}
		garbage = append(garbage, uni)
		if err := d.queue.TryWriteBuffer(uni, 0, dp.params.bytes()); err != nil {
			pass.Release()
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
			pass.Release()
			return err
		}
		x, y, err := d.grid(dp.workgrps)
		if err != nil {
			group.Release()
			pass.Release()
			return err
		}
		pass.SetPipeline(pipe)
		pass.SetBindGroup(0, group, nil)
		pass.DispatchWorkgroups(x, y, 1)
		group.Release()
	}
	if err := pass.TryEnd(); err != nil {
		pass.Release()
		return err
	}
	pass.Release() // wgpu-native wants the pass released before Submit
	size := uint64(len(dst))
	staging, err := d.newBuffer("readback", size, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst)
	if err != nil {
		return err
	}
	garbage = append(garbage, staging)
	if err := encoder.TryCopyBufferToBuffer(out, 0, staging, 0, roundUp16(size)); err != nil {
		return err
	}
	cmd, err := encoder.TryFinish(nil)
	if err != nil {
		return err
	}
	d.queue.Submit(cmd)
	cmd.Release()
	data, err := d.mapRead(staging, roundUp16(size))
	if err != nil {
		return err
	}
	copy(dst, data)
	return staging.TryUnmap()
}

func fmtMapStatus(s wgpu.MapAsyncStatus) error {
	return fmt.Errorf("mapping the readback buffer failed: %v", s)
}
