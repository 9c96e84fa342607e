package shaders

import (
	"github.com/stridelab/stridelab/tensor"
)

// operand is a kernel input: the span of a view's buffer that the kernel
// can reach, to be uploaded once, and the view's base offset within it.
type operand struct {
	data []byte // the span as bytes, front-padded so base is a multiple of 4
	base int    // element offset of the view's first element in data
}

// spanOf returns the bytes of the elements l reaches in t's buffer.
func spanOf(t tensor.Tensor, l tensor.Layout) operand {
	raw := tensor.RawBytes(t)
	lo, hi := l.Span()
	if l.NumElements() == 0 {
		return operand{data: nil, base: 0}
	}
	// Pad so the view's base is 4-aligned: vec4 loads need it.
	pad := (4 - (l.Base()-lo)%4) % 4
	data := make([]byte, 4*(pad+hi-lo+1))
	copy(data[4*pad:], raw[4*lo:4*(hi+1)])
	return operand{data: data, base: l.Base() - lo + pad}
}
