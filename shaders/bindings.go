package shaders

import "github.com/oliverbestmann/webgpu/wgpu"

// inputAndOutput uploads data, the span of a kernel's one input, and
// allocates its output of outputs 4-byte elements, after checking that
// each fits one storage binding (kernels that do not split their work
// into chunks: reduce, softmax); what names the kernel in the error.
func (d *Device) inputAndOutput(what string, data []byte, outputs int) (in, out *wgpu.Buffer, err error) {
	limit := d.limits.MaxStorageBufferBindingSize
	if n := uint64(len(data)); n > limit {
		return nil, nil, tooLarge("the "+what+" input's span", n, limit)
	}
	if n := 4 * uint64(outputs); n > limit {
		return nil, nil, tooLarge("the "+what+" output", n, limit)
	}
	if in, err = d.upload(what+" input", data); err != nil {
		return nil, nil, err
	}
	if out, err = d.newBuffer("out", 4*uint64(outputs), wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc); err != nil {
		free(in)
		return nil, nil, err
	}
	return in, out, nil
}
