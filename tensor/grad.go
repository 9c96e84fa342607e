package tensor

import "fmt"

// ExpandBackward returns the gradient of expand with respect to its input:
// every input element was read once per copy, so its gradient is the sum
// of grad over the broadcast dims,
//
//	dx = Reduce(Sum, grad, inShape)
//
// grad must have a shape inShape expands to.
func ExpandBackward(be Backend, grad Tensor, inShape Shape) (Tensor, error) {
	if _, err := Contiguous(inShape); err != nil {
		return Tensor{}, err
	}
	if _, err := ReducedAxes(grad.layout.shape, inShape); err != nil || len(inShape) > len(grad.layout.shape) {
		return Tensor{}, newError(ErrShape, fmt.Sprintf("expand backward: grad %v for input %v", grad.layout.shape, inShape),
			"the input does not expand to the grad's shape")
	}
	return be.Reduce(Sum, grad, inShape)
}

// RepeatBackward returns the gradient of repeat with respect to its input:
// every input element appears once per copy, so its gradient sums the
// copies. Through the plan, that is a sum over the expanded copy dims:
//
//	dx = Reduce(Sum, grad viewed as ExpandSize, InReshape) viewed as InShape
func RepeatBackward(be Backend, grad Tensor, inShape Shape, times []int) (Tensor, error) {
	plan, err := PlanRepeat(inShape, times)
	if err != nil {
		return Tensor{}, err
	}
	if !grad.layout.shape.Equal(plan.OutShape) {
		return Tensor{}, newError(ErrShape, fmt.Sprintf("repeat backward: grad %v for input %v repeated by %v", grad.layout.shape, inShape, times),
			"repeat's output has shape %v, so the grad must too", plan.OutShape)
	}
	g, err := grad.Reshape(plan.ExpandSize)
	if err != nil { // a strided grad that cannot be regrouped: copy it first
		if g, err = be.Materialize(grad); err == nil {
			g, err = g.Reshape(plan.ExpandSize)
		}
		if err != nil {
			return Tensor{}, err
		}
	}
	dx, err := be.Reduce(Sum, g, plan.InReshape)
	if err != nil {
		return Tensor{}, err
	}
	return dx.Reshape(inShape)
}
