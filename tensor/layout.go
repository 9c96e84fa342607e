package tensor

import (
	"fmt"
	"math/bits"
)

// Layout is an immutable strided view of a flat buffer: a shape, one stride
// per dim (in elements, possibly 0 or negative) and a base offset. The
// element at index i is at
//
//	Offset(i) = base + Σ_d i[d]·stride[d]
//
// Views (Expand, Permute, Reshape, Slice) return new Layouts and never
// mutate their receiver, so a Layout may be shared freely.
type Layout struct {
	shape  Shape
	stride []int
	base   int
}

// Contiguous returns the row-major layout of shape with base 0. It fails if
// shape has a negative size or too many elements.
func Contiguous(shape Shape) (Layout, error) {
	if _, err := shape.NumElements(); err != nil {
		return Layout{}, err
	}
	return Layout{shape: shape.Clone(), stride: ContiguousStrides(shape), base: 0}, nil
}

// NewLayout returns the layout (shape, stride, base). It checks that the rank
// of stride matches, the sizes are valid and every reachable offset fits an
// int; whether the offsets lie inside a particular buffer is checked by
// Tensor, which knows the buffer.
func NewLayout(shape Shape, stride []int, base int) (Layout, error) {
	op := fmt.Sprintf("layout %v strides %v base %d", shape, stride, base)
	if len(stride) != len(shape) {
		return Layout{}, newError(ErrShape, op, "%d strides for %d dims", len(stride), len(shape))
	}
	if _, err := shape.NumElements(); err != nil {
		return Layout{}, err
	}
	l := Layout{shape: shape.Clone(), stride: append([]int{}, stride...), base: base}
	if _, _, err := l.span(); err != nil {
		return Layout{}, newError(ErrOverflow, op, "%v", err)
	}
	return l, nil
}

// Shape returns a copy of the shape.
func (l Layout) Shape() Shape { return l.shape.Clone() }

// Strides returns a copy of the strides, in elements.
func (l Layout) Strides() []int { return append([]int{}, l.stride...) }

// Base returns the offset of the element at index (0, …, 0).
func (l Layout) Base() int { return l.base }

// Rank returns the number of dims.
func (l Layout) Rank() int { return len(l.shape) }

// Dim returns the size of dim d. It panics if d is out of range.
func (l Layout) Dim(d int) int { return l.shape[d] }

// Stride returns the stride of dim d. It panics if d is out of range.
func (l Layout) Stride(d int) int { return l.stride[d] }

// NumElements returns Π shape[d]; a valid Layout never overflows.
func (l Layout) NumElements() int {
	n, _ := l.shape.NumElements()
	return n
}

// String formats the layout as shape, strides and base.
func (l Layout) String() string {
	return fmt.Sprintf("shape %v strides %v base %d", l.shape, l.stride, l.base)
}

// Offset returns base + Σ_d index[d]·stride[d]. It panics if index has the
// wrong rank or a coordinate is out of range: that is a programmer error,
// like indexing a slice out of range.
func (l Layout) Offset(index []int) int {
	if len(index) != len(l.shape) {
		panic(fmt.Sprintf("tensor: Offset: index %v has %d coordinates for shape %v", index, len(index), l.shape))
	}
	off := l.base
	for d, i := range index {
		if i < 0 || i >= l.shape[d] {
			panic(fmt.Sprintf("tensor: Offset: index %v is out of range for shape %v at dim %d", index, l.shape, d))
		}
		off += i * l.stride[d]
	}
	return off
}

// IsContiguous reports whether the layout is row-major with no gaps
// (dims of size 1 may have any stride), so element k is at base + k.
func (l Layout) IsContiguous() bool {
	if l.NumElements() == 0 {
		return true
	}
	want := 1
	for d := len(l.shape) - 1; d >= 0; d-- {
		if l.shape[d] == 1 {
			continue
		}
		if l.stride[d] != want {
			return false
		}
		want *= l.shape[d]
	}
	return true
}

// Span returns the smallest and largest offsets the layout reaches; for an
// empty layout it returns (base, base-1), an empty range.
func (l Layout) Span() (lo, hi int) {
	lo, hi, _ = l.span()
	return lo, hi
}

func (l Layout) span() (lo, hi int, err error) {
	if l.NumElements() == 0 {
		return l.base, l.base - 1, nil
	}
	lo, hi = l.base, l.base
	for d, n := range l.shape {
		ext, ok := mulInt(n-1, l.stride[d])
		if !ok {
			return 0, 0, fmt.Errorf("offsets overflow at dim %d", d)
		}
		if ext < 0 {
			lo, ok = addInt(lo, ext)
		} else {
			hi, ok = addInt(hi, ext)
		}
		if !ok {
			return 0, 0, fmt.Errorf("offsets overflow at dim %d", d)
		}
	}
	return lo, hi, nil
}

func mulInt(a, b int) (int, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(abs(a)), uint64(abs(b))
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > maxInt {
		return 0, false
	}
	if neg {
		return -int(lo), true
	}
	return int(lo), true
}

func addInt(a, b int) (int, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
