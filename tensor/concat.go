package tensor

import "fmt"

// Concat joins parts along axis into a new contiguous tensor, as NumPy's
// concatenate: the parts share a dtype and every other dim, and part p
// fills out[…, off_p : off_p + shape_p[axis], …]. With
// outer = Π shape[:axis], each part is outer blocks of Π shape_p[axis:]
// elements, copied to row o at offset o·Π out[axis:] + off_p·Π out[axis+1:].
// It is a host copy: the receiving side of a gather, and the assembly of
// work split along a kept dim.
func Concat(axis int, parts ...Tensor) (Tensor, error) {
	op := "concat"
	if len(parts) == 0 {
		return Tensor{}, newError(ErrShape, op, "no parts")
	}
	shapes := make([]Shape, len(parts))
	for i, p := range parts {
		if !p.Valid() {
			return Tensor{}, newError(ErrShape, op, "part %d is an empty Tensor value", i)
		}
		shapes[i] = p.layout.shape
	}
	op = fmt.Sprintf("concat %s along axis %d", formatShapes(shapes), axis)
	first := shapes[0]
	if axis < 0 || axis >= len(first) {
		return Tensor{}, newError(ErrShape, op, "axis %d is outside a %d-dim tensor", axis, len(first))
	}
	shape := first.Clone()
	shape[axis] = 0
	for i, s := range shapes {
		if parts[i].DType() != parts[0].DType() {
			return Tensor{}, newError(ErrDType, op, "part %d is %v but part 0 is %v", i, parts[i].DType(), parts[0].DType())
		}
		if len(s) != len(first) {
			return Tensor{}, newError(ErrShape, op, "part %d has %d dims but part 0 has %d", i, len(s), len(first))
		}
		for d := range s {
			if d != axis && s[d] != first[d] {
				return Tensor{}, newError(ErrShape, op, "part %d has size %d in dim %d but part 0 has %d", i, s[d], d, first[d])
			}
		}
		shape[axis] += s[axis]
	}
	if _, err := shape.NumElements(); err != nil {
		return Tensor{}, newError(ErrOverflow, op, "the element count of the result overflows int64")
	}
	out, err := Empty(parts[0].DType(), shape)
	if err != nil {
		return Tensor{}, err
	}
	off := 0
	for _, p := range parts {
		if !p.layout.IsContiguous() {
			if p, err = (CPU{}).Materialize(p); err != nil {
				return Tensor{}, err
			}
		}
		switch d := out.data.(type) {
		case []float32:
			concatInto(d, p.data.([]float32), p.layout, shape, axis, off)
		case []int32:
			concatInto(d, p.data.([]int32), p.layout, shape, axis, off)
		case []uint32:
			concatInto(d, p.data.([]uint32), p.layout, shape, axis, off)
		}
		off += p.layout.shape[axis]
	}
	return out, nil
}

// concatInto copies the contiguous view l of src into dst (of shape) at
// offset off along axis.
func concatInto[T Elem](dst, src []T, l Layout, shape Shape, axis, off int) {
	n := l.NumElements()
	if n == 0 {
		return
	}
	src = src[l.base : l.base+n]
	outer := product(shape[:axis])
	row, chunk := product(shape[axis:]), product(l.shape[axis:])
	at := off * product(shape[axis+1:])
	for o := 0; o < outer; o++ {
		copy(dst[o*row+at:o*row+at+chunk], src[o*chunk:(o+1)*chunk])
	}
}
