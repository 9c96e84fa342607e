package planner

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// IsParameter reports whether step s is a parameter, what an optimizer
// keeps state for: a program input of the forward that gets a gradient
// (neither const nor int32 ids); the other inputs are data.
func (s Step) IsParameter() bool {
	return s.Kind == StepInput && s.Pass == graph.Forward && !s.Const && !s.Int
}

// optimizerState is what each device (by position in p) holds of the
// optimizer's state for every parameter among steps, for the whole step:
// opt.StateBytes(precision) a parameter element (Adam's two float32
// moments, a 16-bit parameter's float32 master copy), the elements laid
// out as the parameter is, or with ZeRO-1 and 2 split evenly over every
// device (⌈E/N⌉ or ⌊E/N⌋ of a parameter's E elements, sbp.BalancedSplit),
// so that the Playbook's counts hold:
//
//	state(i) = Σ_parameters opt.StateBytes(p) · elements held at i
//
// nil opt holds nothing.
func optimizerState(p sbp.Placement, steps []Step, opt *program.Optimizer) ([]int64, error) {
	out := make([]int64, p.Size())
	if opt == nil {
		return out, nil
	}
	for _, s := range steps {
		if !s.IsParameter() {
			continue
		}
		state, err := parameterState(p, s, opt)
		if err != nil {
			return nil, err
		}
		for i, b := range state {
			if out[i], err = tensor.AddBytes(fmt.Sprintf("the optimizer's state on rank %d", p.Rank(i)), out[i], b); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// parameterState is what each device holds of opt's state for parameter
// step s (optimizerState's rule, one parameter's part; nil opt: none).
func parameterState(p sbp.Placement, s Step, opt *program.Optimizer) ([]int64, error) {
	out := make([]int64, p.Size())
	if opt == nil || opt.StateBytes(s.Precision) == 0 {
		return out, nil
	}
	per := opt.StateBytes(s.Precision)
	elems, err := elementsHeld(s.Shape, p, s.Sbp, opt.ZeRO >= 1)
	if err != nil {
		return nil, fmt.Errorf("the optimizer's state of %s %v as %s: %w", s.Name, s.Shape, s.Sbp, err)
	}
	for i, e := range elems {
		if e > math.MaxInt64/per {
			return nil, fmt.Errorf("the optimizer's state of %s: %w", s.Name, tensor.ErrOverflow)
		}
		out[i] = e * per
	}
	return out, nil
}

// elementsHeld is how many elements of a tensor of shape laid out as nd
// each device holds (by position in p), or with even the elements split
// evenly over every device whatever nd says (ZeRO's partition of a
// flattened parameter).
func elementsHeld(shape tensor.Shape, p sbp.Placement, nd sbp.NdSbp, even bool) ([]int64, error) {
	out := make([]int64, p.Size())
	if even {
		n, err := shape.NumElements()
		if err != nil {
			return nil, err
		}
		for i, part := range sbp.BalancedSplit(n, p.Size()) {
			out[i] = int64(part)
		}
		return out, nil
	}
	shards, err := sbp.Shards(shape, p, nd)
	if err != nil {
		return nil, err
	}
	for i, sh := range shards {
		n, err := sh.Shape.NumElements()
		if err != nil {
			return nil, err
		}
		out[i] = int64(n)
	}
	return out, nil
}

// evenBytes is what each device holds of a tensor of shape split evenly
// over every device of p, elements of width bytes (ZeRO-2's gradients).
func evenBytes(shape tensor.Shape, width int64, p sbp.Placement) ([]int64, error) {
	elems, err := elementsHeld(shape, p, nil, true)
	for i := range elems {
		elems[i] *= width
	}
	return elems, err
}

// Memory is what one rank holds for the whole training step besides the
// activations, in the Ultra-Scale Playbook's parts: its shards of the
// parameters, of their final gradients and of the optimizer's state.
type Memory struct {
	Parameters int64 `json:"parameters_bytes"`
	Gradients  int64 `json:"gradients_bytes"`
	Optimizer  int64 `json:"optimizer_bytes"`
}

// Memory returns each rank's parts (by position in the placement): Σ
// over the parameters (Step.IsParameter) of their shards, of their final
// gradients' (split evenly under ZeRO-2) and the optimizer's state
// (optimizerState). Mixed precision with Adam gives the Playbook's
// 2Ψ + 2Ψ + 12Ψ bytes for Ψ parameters held whole, each part divided by
// the devices where it is split (ZeRO-1: the state; ZeRO-2: and the
// gradients; ZeRO-3, parameters laid out split: all three).
func (pl *Plan) Memory() ([]Memory, error) {
	p, opt := pl.Program.Placement, pl.Program.Optimizer
	out := make([]Memory, p.Size())
	state, err := optimizerState(p, pl.Steps, opt)
	if err != nil {
		return nil, err
	}
	byName := map[string]Step{}
	for _, s := range pl.Steps {
		byName[s.Name] = s
	}
	for _, s := range pl.Steps {
		if !s.IsParameter() {
			continue
		}
		b, err := valueBytes(p, s, false)
		if err != nil {
			return nil, err
		}
		g, ok := byName[pl.Grads[s.Name]]
		var gb []int64
		if ok {
			if gb, err = valueBytes(p, g, opt != nil && opt.ZeRO >= 2); err != nil {
				return nil, err
			}
		}
		for i := range out {
			out[i].Parameters += b[i]
			if gb != nil {
				out[i].Gradients += gb[i]
			}
		}
	}
	for i := range out {
		out[i].Optimizer = state[i]
	}
	return out, nil
}
