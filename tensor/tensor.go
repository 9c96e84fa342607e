package tensor

import (
	"fmt"
	"math"
)

// Tensor is a typed buffer seen through a Layout. Views share the buffer;
// kernels always write a fresh contiguous Tensor. The zero Tensor is
// invalid (no buffer).
type Tensor struct {
	layout Layout
	data   any // []float32, []int32 or []uint32
}

// FromSlice returns the contiguous tensor of shape over data (shared, not
// copied). len(data) must equal the element count.
func FromSlice[T Elem](shape Shape, data []T) (Tensor, error) {
	l, err := Contiguous(shape)
	if err != nil {
		return Tensor{}, err
	}
	if len(data) != l.NumElements() {
		return Tensor{}, newError(ErrShape, fmt.Sprintf("tensor of shape %v", shape), "it needs %d elements, the buffer has %d", l.NumElements(), len(data))
	}
	return Tensor{layout: l, data: data}, nil
}

// FromLayout returns the view l of data (shared). Every offset l reaches
// must lie in data.
func FromLayout[T Elem](l Layout, data []T) (Tensor, error) {
	t := Tensor{layout: l, data: data}
	return t, t.checkSpan(l)
}

func (t Tensor) checkSpan(l Layout) error {
	lo, hi := l.Span()
	if n := t.bufferLen(); hi >= lo && (lo < 0 || hi >= n) {
		return newError(ErrIndex, "view "+l.String(), "it reaches offsets %d..%d of a buffer of %d elements", lo, hi, n)
	}
	return nil
}

// Zeros returns a new contiguous tensor of zeros. Like every allocation of
// a result it is checked against the limit first (CheckResult).
func Zeros(dt DType, shape Shape) (Tensor, error) {
	return newContiguous(dt, shape, true, func() string { return "zeros " + shape.String() })
}

// Empty returns a new contiguous tensor whose contents are unspecified
// (NumPy's np.empty): for kernels and readbacks that write every element.
// It skips the clearing pass Zeros pays, which costs as much as a copy.
func Empty(dt DType, shape Shape) (Tensor, error) {
	return newContiguous(dt, shape, false, func() string { return "empty " + shape.String() })
}

// newContiguous allocates a result after checking it against the limit;
// op names the operation in errors (built only when there is one, since
// formatting shapes would cost a small kernel a few percent).
func newContiguous(dt DType, shape Shape, zero bool, op func() string) (Tensor, error) {
	if !dt.Valid() {
		return Tensor{}, newError(ErrDType, op(), "dtype %v is not supported", dt)
	}
	l, err := Contiguous(shape)
	if err != nil {
		return Tensor{}, err
	}
	if int64(l.NumElements()) > MaxBytes().Bytes/int64(dt.Size()) {
		return Tensor{}, CheckResult(op(), dt, shape)
	}
	n := l.NumElements()
	switch dt {
	case Float32:
		return Tensor{layout: l, data: allocate[float32](n, zero)}, nil
	case Int32:
		return Tensor{layout: l, data: allocate[int32](n, zero)}, nil
	case Uint32:
		return Tensor{layout: l, data: allocate[uint32](n, zero)}, nil
	}
	return Tensor{}, newError(ErrDType, op(), "dtype %v is not supported", dt)
}

// Arange returns the contiguous tensor of shape holding 0, 1, 2, … in
// row-major order: the tensor whose values are its own offsets, which makes
// every view's mapping visible.
func Arange(dt DType, shape Shape) (Tensor, error) {
	t, err := Empty(dt, shape)
	if err != nil {
		return Tensor{}, err
	}
	switch d := t.data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(i)
		}
	case []int32:
		for i := range d {
			d[i] = int32(i)
		}
	case []uint32:
		for i := range d {
			d[i] = uint32(i)
		}
	}
	return t, nil
}

// Valid reports whether t has a buffer.
func (t Tensor) Valid() bool { return t.data != nil }

// DType returns the element type.
func (t Tensor) DType() DType {
	switch t.data.(type) {
	case []float32:
		return Float32
	case []int32:
		return Int32
	case []uint32:
		return Uint32
	}
	return 0
}

// Layout returns the view's layout.
func (t Tensor) Layout() Layout { return t.layout }

// Shape returns a copy of the shape.
func (t Tensor) Shape() Shape { return t.layout.Shape() }

// NumElements returns the element count of the view.
func (t Tensor) NumElements() int { return t.layout.NumElements() }

func (t Tensor) bufferLen() int {
	switch d := t.data.(type) {
	case []float32:
		return len(d)
	case []int32:
		return len(d)
	case []uint32:
		return len(d)
	}
	return 0
}

// Buffer returns t's whole backing buffer (shared, not copied) if T is its
// element type.
func Buffer[T Elem](t Tensor) ([]T, error) {
	d, ok := t.data.([]T)
	if !ok {
		return nil, newError(ErrDType, "buffer of a "+t.DType().String()+" tensor", "asked for %v elements", DTypeOf[T]())
	}
	return d, nil
}

// WithLayout returns the view l of t's buffer. l must stay inside it.
func (t Tensor) WithLayout(l Layout) (Tensor, error) {
	v := Tensor{layout: l, data: t.data}
	return v, t.checkSpan(l)
}

// Expand is Layout.Expand on t's layout, sharing the buffer.
func (t Tensor) Expand(size []int) (Tensor, error) { return t.view(t.layout.Expand(size)) }

// Permute is Layout.Permute on t's layout, sharing the buffer.
func (t Tensor) Permute(perm []int) (Tensor, error) { return t.view(t.layout.Permute(perm)) }

// Reshape is Layout.Reshape on t's layout, sharing the buffer; it fails
// with ErrNeedsCopy when no view exists.
func (t Tensor) Reshape(shape []int) (Tensor, error) { return t.view(t.layout.Reshape(shape)) }

// Narrow is Layout.Narrow on t's layout, sharing the buffer.
func (t Tensor) Narrow(axis, start, stop int) (Tensor, error) {
	return t.view(t.layout.Narrow(axis, start, stop))
}

// Slice is Layout.Slice on t's layout, sharing the buffer.
func (t Tensor) Slice(idx ...Index) (Tensor, error) { return t.view(t.layout.Slice(idx...)) }

func (t Tensor) view(l Layout, err error) (Tensor, error) {
	if err != nil {
		return Tensor{}, err
	}
	return Tensor{layout: l, data: t.data}, nil
}

// At returns the element at index as a float64 (exact for all three
// dtypes). It panics if index is out of range, like Layout.Offset.
func (t Tensor) At(index ...int) float64 {
	return t.atOffset(t.layout.Offset(index))
}

func (t Tensor) atOffset(off int) float64 {
	switch d := t.data.(type) {
	case []float32:
		return float64(d[off])
	case []int32:
		return float64(d[off])
	case []uint32:
		return float64(d[off])
	}
	return math.NaN()
}

// Float64s returns the view's elements in row-major order as float64s.
func (t Tensor) Float64s() []float64 {
	out := make([]float64, 0, t.NumElements())
	forEachOffset(t.layout, func(off int) { out = append(out, t.atOffset(off)) })
	return out
}

// forEachOffset calls fn with the offset of every index of l in row-major
// order. It is the slow, obviously right walk that tests compare kernels to.
func forEachOffset(l Layout, fn func(off int)) {
	n := l.NumElements()
	if n == 0 {
		return
	}
	idx := make([]int, len(l.shape))
	off := l.base
	for k := 0; k < n; k++ {
		fn(off)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			off += l.stride[d]
			if idx[d] < l.shape[d] {
				break
			}
			off -= idx[d] * l.stride[d]
			idx[d] = 0
		}
	}
}

// Release hands t's buffer back for reuse by later kernel outputs, the way
// NumPy's memory returns to malloc when an array's last reference goes. It
// is optional: without it the garbage collector reclaims the buffer. After
// Release, t and every view sharing its buffer must not be used again, and
// a buffer must be released at most once. Release of an invalid Tensor
// does nothing.
func (t Tensor) Release() {
	switch d := t.data.(type) {
	case []float32:
		recycle(d)
	case []int32:
		recycle(d)
	case []uint32:
		recycle(d)
	}
}
