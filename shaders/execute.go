package shaders

import (
	"encoding/binary"
	"fmt"
	"slices"

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
	baseO, reduced, per        uint32 // followed by a u32 of padding
	shape, aux                 [maxRank]uint32
	strideA, strideB, strideO  [maxRank]int32
	fan, fan2, fanLoad         [4]int32
	split                      [4]uint32 // reduce: chunks per output, elements per chunk
}

// paramsSize is Params' size: the fields above, then the magic pairs of
// shape, aux and count (divisor), which bytes derives.
const paramsSize = 32 + 5*4*maxRank + 4*16 + 2*8*maxRank + 16

func (p *params) bytes() []byte {
	b := make([]byte, 0, paramsSize)
	for _, v := range []uint32{p.count, p.start, p.baseA, p.baseB, p.baseO, p.reduced, p.per, 0} {
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
	for _, v := range slices.Concat(p.fan[:], p.fan2[:], p.fanLoad[:]) {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range p.split {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range slices.Concat(p.shape[:], p.aux[:], []uint32{p.count, 0}) {
		m, l := divisor(v)
		b = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, m), l)
	}
	return b
}

// itemsPer returns how many items each invocation of an elementwise
// dispatch of items work items takes. On a GPU: as many as leave
// fillInvocations invocations, one to itemsPerInvocation (the earlier rule,
// one item below 2^18 and 8 from there, left add [1024,1,4096]+[1,4,4096]
// 32,768 invocations). A CPU adapter runs a workgroup's
// invocations one SIMD vector after another on one of its threads and
// pays, per invocation, for finding the coordinates of its first item
// (divisions, even as multiplies): every invocation takes
// itemsPerInvocation items, and twice or four times that while the
// dispatch still gives each thread workgroupsPerThread workgroups to
// share out (SwiftShader on 2 threads, repeat [64,4096] by [2,2]: 0.92
// of the copy kernel's rate at 8 items, 1.11 at 32, in one run).
func (d *Device) itemsPer(items int) int {
	if !d.onCPU() {
		// up to itemsPerInvocation, while fillInvocations invocations remain
		return max(1, min(itemsPerInvocation, items/fillInvocations))
	}
	per := itemsPerInvocation
	for per < maxItemsPerInvocation && items >= 2*per*workgroupSize*workgroupsPerThread*d.threads {
		per *= 2
	}
	return per
}

// tilesOf returns the workgroups of a dispatch of items taken per to an
// invocation, and per raised to fit d's grid.
func (d *Device) tilesOf(items, per int) (uint64, uint32) {
	limit := uint64(d.limits.MaxComputeWorkgroupsPerDimension)
	groups, per := tiles(items, limit*limit, per)
	return groups, uint32(per)
}

// grid lays n workgroups out as a 2-D dispatch: WebGPU caps each dimension
// (maxComputeWorkgroupsPerDimension, 65535 by default), and item_index in
// the prelude rebuilds the linear index from (x, y). Past limit² workgroups
// the grid stays at limit²: the reduce kernel's grid-stride loop takes the
// remaining outputs (elementwise dispatches size per to fit, see tiles; the
// copy kernel, which does not loop, is bounded far below by its binding
// size).
func (d *Device) grid(n uint64) (x, y uint32) {
	limit := uint64(d.limits.MaxComputeWorkgroupsPerDimension)
	if n <= limit {
		return uint32(n), 1
	}
	rows := min(limit, (n+limit-1)/limit)
	return uint32(limit), uint32(rows)
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
	return d.uploadAs(label, data, uint64(len(data)), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc)
}

// uploadAs copies data into the front of a new buffer of size bytes and
// the given usage (WriteBuffer's CopyDst added).
func (d *Device) uploadAs(label string, data []byte, size uint64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	buf, err := d.newBuffer(label, size, usage|wgpu.BufferUsageCopyDst)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if err := d.queue.TryWriteBuffer(buf, 0, data); err != nil {
			free(buf)
			return nil, err
		}
	}
	return buf, nil
}

// uploadAll uploads each operand's span into a buffer of its own: a
// storage buffer, or for a uniform load (loads[k]) a uniform buffer of
// uniformBytes.
func (d *Device) uploadAll(ops []operand, loads []load) ([]*wgpu.Buffer, error) {
	var bufs []*wgpu.Buffer
	for k, op := range ops {
		label := fmt.Sprintf("operand %d", k)
		var b *wgpu.Buffer
		var err error
		if loads[k] == loadUniform {
			b, err = d.uploadAs(label, op.data, uniformBytes, wgpu.BufferUsageUniform)
		} else {
			b, err = d.upload(label, op.data)
		}
		if err != nil {
			freeAll(bufs)
			return nil, err
		}
		bufs = append(bufs, b)
	}
	return bufs, nil
}

// free destroys b's memory and releases its handle. Destroy alone
// leaves the handle to the garbage collector's finalizer, which runs
// seldom in a program that holds a large heap, and until it runs the
// device keeps the buffer: wgpu sizes the usage tracking of every
// command buffer by the buffers the device holds, so each call costs
// more than the last (BenchmarkSmallCalls, 25000 materializes beside a
// 256 MiB heap: 2.7 ms a call with handles left to finalizers, 0.25 ms
// released here).
func free(b *wgpu.Buffer) {
	b.Destroy()
	b.Release()
}

func freeAll(bufs []*wgpu.Buffer) {
	for _, b := range bufs {
		free(b)
	}
}

func fmtMapStatus(s wgpu.MapAsyncStatus) error {
	return fmt.Errorf("mapping the readback buffer failed: %v", s)
}
