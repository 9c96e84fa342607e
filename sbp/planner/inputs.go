package planner

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// InputValue is an input step's logical value, as every engine makes
// it: ones or zeros for the backward's; else the value given by name
// (float32, or int32 for ids, of the step's shape), which overrides
// arange and uniform and is needed for a file; else 0, 1, 2, … for
// arange, or tensor.Uniform(name, shape) for uniform.
func InputValue(s Step, given Values) (tensor.Tensor, error) {
	switch s.Values {
	case program.ValuesOnes:
		n, err := s.Shape.NumElements()
		if err != nil {
			return tensor.Tensor{}, err
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = 1
		}
		return tensor.FromSlice(s.Shape, data)
	case program.ValuesZeros:
		return tensor.Zeros(tensor.Float32, s.Shape)
	}
	dt := tensor.Float32
	if s.Int {
		dt = tensor.Int32
	}
	if t, ok := given[s.Name]; ok {
		if !t.Shape().Equal(s.Shape) || t.DType() != dt {
			return tensor.Tensor{}, fmt.Errorf("input %s is %v %v in the program, but the values given are %v %v", s.Name, dt, s.Shape, t.DType(), t.Shape())
		}
		return tensor.CPU{}.Materialize(t)
	}
	switch s.Values {
	case program.ValuesArange:
		return tensor.Arange(dt, s.Shape)
	case program.ValuesUniform:
		return tensor.Uniform(s.Name, s.Shape)
	}
	return tensor.Tensor{}, fmt.Errorf("input %s comes from %s, but no values were given for it", s.Name, s.Values)
}

// Values are the logical values of a run, by name: every tensor the
// program names and every gradient (grad_NAME).
type Values map[string]tensor.Tensor

// Release releases every tensor.
func (v Values) Release() {
	for _, t := range v {
		t.Release()
	}
}
