package tensor

import "fmt"

// RepeatPlan is repeat written as three movement ops, the way OneFlow builds
// it: reshape the input to InReshape (a view: it only inserts size-1 dims),
// expand that to ExpandSize (a view: stride 0 on the new copies), then
// reshape to OutShape (a copy: the expanded dims no longer chain).
//
// Per aligned dim with size s and repeat count t:
//
//	t == 1:          in [s]     expand [s]     out [s]
//	s == 1:          in [1]     expand [t]     out [t]
//	otherwise:       in [1 s]   expand [t s]   out [t·s]
//	new leading dim: in []      expand [t]     out [t]
type RepeatPlan struct {
	InShape    Shape // the input shape
	Times      []int // repeat count per output dim; len(Times) >= len(InShape)
	InReshape  Shape // the input viewed with a size-1 dim before each repeated dim
	ExpandSize Shape // InReshape expanded to hold the copies
	OutShape   Shape // ExpandSize with each (t, s) pair merged: Times[d]·InShape[d]
}

// PlanRepeat validates times against shape with PyTorch/OneFlow semantics
// (len(times) >= rank, new dims at the front, times[d] >= 0, 0 gives an
// empty dim) and returns the reshape + expand + reshape decomposition.
func PlanRepeat(shape Shape, times []int) (RepeatPlan, error) {
	op := fmt.Sprintf("repeat %v by %v", shape, times)
	if len(times) < len(shape) {
		return RepeatPlan{}, newError(ErrShape, op, "%d repeat counts for %d dims; give at least one per dim", len(times), len(shape))
	}
	for d, t := range times {
		if t < 0 {
			return RepeatPlan{}, newError(ErrShape, op, "dim %d has repeat count %d; counts must be >= 0", d, t)
		}
	}
	p := RepeatPlan{InShape: shape.Clone(), Times: append([]int{}, times...)}
	lead := len(times) - len(shape)
	for d, t := range times {
		if d < lead {
			p.ExpandSize = append(p.ExpandSize, t)
			p.OutShape = append(p.OutShape, t)
			continue
		}
		s := shape[d-lead]
		switch {
		case t == 1:
			p.InReshape = append(p.InReshape, s)
			p.ExpandSize = append(p.ExpandSize, s)
			p.OutShape = append(p.OutShape, s)
		case s == 1:
			p.InReshape = append(p.InReshape, 1)
			p.ExpandSize = append(p.ExpandSize, t)
			p.OutShape = append(p.OutShape, t)
		default:
			p.InReshape = append(p.InReshape, 1, s)
			p.ExpandSize = append(p.ExpandSize, t, s)
			p.OutShape = append(p.OutShape, t*s)
		}
	}
	if p.InReshape == nil {
		p.InReshape = Shape{}
	}
	if p.OutShape == nil {
		p.OutShape, p.ExpandSize = Shape{}, Shape{}
	}
	if _, err := p.OutShape.NumElements(); err != nil {
		return RepeatPlan{}, newError(ErrOverflow, op, "the element count of the result %v overflows int64", p.OutShape)
	}
	return p, nil
}

// View returns the expanded view of in that the plan's last reshape copies
// out: in reshaped to InReshape, then expanded to ExpandSize. Read in
// row-major order it is the repeated tensor.
func (p RepeatPlan) View(in Layout) (Layout, error) {
	r, err := in.Reshape(p.InReshape)
	if err != nil {
		return Layout{}, err
	}
	return r.Expand(p.ExpandSize)
}
