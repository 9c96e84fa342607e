package tensor

import "fmt"

// Reshape returns a view of l with the given shape, in row-major element
// order, when one exists. One entry may be -1 and is inferred. When the
// strides cannot express the new shape (for example a permuted or expanded
// input whose merged dims no longer chain) it returns an error wrapping
// ErrNeedsCopy: materialize first, then reshape.
//
// The rule is PyTorch's computeStride: group the old dims into chunks whose
// strides chain (stride[d-1] == shape[d]·stride[d]); every new dim must fall
// inside one chunk, where it gets the chunk's contiguous stride.
func (l Layout) Reshape(newShape []int) (Layout, error) {
	op := fmt.Sprintf("reshape %v to %v", l.shape, Shape(newShape))
	shape, err := inferShape(op, l.NumElements(), newShape)
	if err != nil {
		return Layout{}, err
	}
	stride, ok := viewStrides(l.shape, l.stride, shape)
	if !ok {
		return Layout{}, newError(ErrNeedsCopy, op, "strides %v cannot be regrouped into %v without copying", l.stride, shape)
	}
	return Layout{shape: shape, stride: stride, base: l.base}, nil
}

// inferShape resolves one -1 in newShape so the element count is numel.
func inferShape(op string, numel int, newShape []int) (Shape, error) {
	shape := Shape(newShape).Clone()
	infer := -1
	known := 1
	for d, n := range shape {
		switch {
		case n == -1 && infer >= 0:
			return nil, newError(ErrShape, op, "dims %d and %d are both -1; only one size can be inferred", infer, d)
		case n == -1:
			infer = d
		case n < 0:
			return nil, newError(ErrShape, op, "dim %d has size %d; sizes must be >= 0 or -1", d, n)
		default:
			k, ok := mulInt(known, n)
			if !ok {
				return nil, newError(ErrOverflow, op, "the element count overflows at dim %d", d)
			}
			known = k
		}
	}
	if infer >= 0 {
		if known == 0 || numel%known != 0 {
			return nil, newError(ErrShape, op, "cannot infer dim %d: %d elements do not divide into blocks of %d", infer, numel, known)
		}
		shape[infer] = numel / known
		known = numel
	}
	if known != numel {
		return nil, newError(ErrShape, op, "the input has %d elements but the new shape has %d", numel, known)
	}
	return shape, nil
}

// viewStrides is PyTorch's computeStride: the strides that make newShape a
// view of (oldShape, oldStride), or false if there are none.
func viewStrides(oldShape Shape, oldStride []int, newShape Shape) ([]int, bool) {
	newStride := make([]int, len(newShape))
	numel, _ := oldShape.NumElements()
	if numel == 0 || len(oldShape) == 0 {
		// Nothing to keep apart: any strides address the (zero or one) elements.
		copy(newStride, ContiguousStrides(newShape))
		return newStride, true
	}
	viewD := len(newShape) - 1
	chunkBase := oldStride[len(oldStride)-1]
	tensorNumel, viewNumel := 1, 1
	for d := len(oldShape) - 1; d >= 0; d-- {
		tensorNumel *= oldShape[d]
		chunkEnds := d == 0 || (oldShape[d-1] != 1 && oldStride[d-1] != tensorNumel*chunkBase)
		if !chunkEnds {
			continue
		}
		for viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1) {
			newStride[viewD] = viewNumel * chunkBase
			viewNumel *= newShape[viewD]
			viewD--
		}
		if viewNumel != tensorNumel {
			return nil, false
		}
		if d > 0 {
			chunkBase, tensorNumel, viewNumel = oldStride[d-1], 1, 1
		}
	}
	return newStride, viewD == -1
}
