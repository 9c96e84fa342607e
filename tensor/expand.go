package tensor

import "fmt"

// Expand returns the view of l broadcast to size, with stride 0 on every
// broadcast dim. The rules are those of OneFlow's and PyTorch's expand:
//
//   - len(size) >= rank; the extra dims are new leading dims, and a new dim
//     may not be -1 (it has nothing to keep);
//   - -1 keeps a dim's size;
//   - a dim of size 1 may become any size n >= 0, and then gets stride 0;
//   - a dim of any other size may only be kept (its size or -1).
//
// New leading dims always get stride 0, even when their size is 1, so
// [4 1 3 5] (strides [15 15 5 1]) expanded to [2 1 4 4 3 5] has strides
// [0 0 15 0 5 1].
func (l Layout) Expand(size []int) (Layout, error) {
	op := fmt.Sprintf("expand %v to %v", l.shape, Shape(size))
	if len(size) < len(l.shape) {
		return Layout{}, newError(ErrShape, op, "the size has %d dims but the input has %d; expand can add dims, never drop them", len(size), len(l.shape))
	}
	lead := len(size) - len(l.shape)
	shape := make(Shape, len(size))
	stride := make([]int, len(size))
	for d, n := range size {
		if d < lead {
			if n < 0 {
				return Layout{}, newError(ErrShape, op, "dim %d is a new leading dim, so its size must be >= 0, not %d", d, n)
			}
			shape[d], stride[d] = n, 0
			continue
		}
		have := l.shape[d-lead]
		switch {
		case n == -1 || n == have:
			shape[d], stride[d] = have, l.stride[d-lead]
		case n < -1:
			return Layout{}, newError(ErrShape, op, "dim %d has size %d; a size must be >= 0 or -1 to keep the dim", d, n)
		case have == 1:
			shape[d], stride[d] = n, 0
		default:
			return Layout{}, newError(ErrShape, op, "dim %d has size %d, so the new size must be %d or -1, not %d", d, have, have, n)
		}
	}
	if _, err := shape.NumElements(); err != nil {
		return Layout{}, newError(ErrOverflow, op, "the element count of the result overflows int64")
	}
	return Layout{shape: shape, stride: stride, base: l.base}, nil
}
