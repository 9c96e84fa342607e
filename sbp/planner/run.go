package planner

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// CheckBudget asks the result budget (tensor.CheckBytes) whether a
// simulated run of the plan fits before anything is allocated: every
// tensor it holds, each step's output and each boxed copy, on every
// device at once (sbp.Footprint), and the logical values it returns. A
// refusal is an *Error naming the statement behind the first tensor that
// passes the budget (for a tensor of the backward, the grad), as every
// other program error does.
func (pl *Plan) CheckBudget() error {
	var total int64
	tensors := 0
	add := func(what string, b int64, err error) error {
		if err == nil {
			total, err = tensor.AddBytes("program", total, b)
		}
		if err == nil {
			tensors++
			err = tensor.CheckBytes(fmt.Sprintf("a run of the program on %d devices", pl.Program.Placement.Size()), "what it holds", total,
				fmt.Sprintf("%d tensors so far, up to %s", tensors, what))
		}
		return err
	}
	p := pl.Program.Placement
	for _, s := range pl.Steps {
		nd := s.Out()
		fp, err := sbp.Footprint(s.Shape, tensor.Float32, p, nd)
		if err := add(fmt.Sprintf("%s %v as %s on %d devices", s.Name, s.Shape, nd, p.Size()), fp, err); err != nil {
			return pl.StatementError(s, err)
		}
		full, err := tensor.ResultBytes(tensor.Float32, s.Shape)
		if err := add(fmt.Sprintf("%s's logical value %v", s.Name, s.Shape), full, err); err != nil {
			return pl.StatementError(s, err)
		}
	}
	return nil
}

// Run runs the plan on simulated devices (sbp.Global on backend be): each
// input scattered as its SBP (the values given by name in inputs, else
// 0, 1, 2, …), each boxing and each op as planned, and returns the full
// value of every named tensor and gradient. The run is refused before
// anything is allocated when it would pass the result budget.
func (pl *Plan) Run(be tensor.Backend, inputs Values) (Values, error) {
	vals, _, err := pl.RunMoved(be, inputs)
	return vals, err
}

// RunMoved is Run that also returns what each boxing moved between the
// devices as it ran (sbp.Global.BoxMoved): moved[k] holds one sbp.Moved
// per collective of step k's boxing, none for the other steps.
func (pl *Plan) RunMoved(be tensor.Backend, inputs Values) (vals Values, moved [][]sbp.Moved, err error) {
	if err := pl.CheckBudget(); err != nil {
		return nil, nil, err
	}
	moved = make([][]sbp.Moved, len(pl.Steps))
	if be == nil {
		be = tensor.CPU{}
	}
	globals := map[string]*sbp.Global{}
	defer func() {
		for _, g := range globals {
			g.Release()
		}
	}()
	p := pl.Program.Placement
	for k, s := range pl.Steps {
		fail := func(err error) error { return &program.Error{Err: fmt.Errorf("step %s (%s): %w", s.Name, s.Kind, err)} }
		switch s.Kind {
		case StepInput:
			full, err := InputValue(s, inputs)
			if err != nil {
				return nil, nil, fail(err)
			}
			g, err := sbp.Scatter(be, full, p, s.Sbp)
			full.Release()
			if err != nil {
				return nil, nil, fail(err)
			}
			globals[s.Name] = g
		case StepBoxing:
			b, err := s.PlannedBoxing()
			if err != nil {
				return nil, nil, fail(err)
			}
			g, mv, err := globals[s.Reads()[0]].RunBoxing(b)
			if err != nil {
				return nil, nil, fail(err)
			}
			globals[s.Name], moved[k] = g, mv
		case StepOp:
			in := make([]*sbp.Global, len(s.Reads()))
			for i, a := range s.Reads() {
				in[i] = globals[a]
			}
			g, err := sbp.ApplyAs(s.Operation(), s.OutSbp, in...)
			if err != nil {
				return nil, nil, fail(fmt.Errorf("%w (the plan should have boxed its inputs: a bug in the planner)", err))
			}
			globals[s.Name] = g
		}
	}
	vals, err = pl.collect(func(name string) (tensor.Tensor, error) { return globals[name].Full() })
	if err != nil {
		return nil, nil, err
	}
	return vals, moved, nil
}

// Reference runs the program on one CPU device, the logical values
// straight through each op's Local: the single-device result the
// simulated run must equal.
func (pl *Plan) Reference(inputs Values) (Values, error) {
	if err := pl.CheckBudget(); err != nil {
		return nil, err
	}
	vals := Values{}
	defer vals.Release()
	cpu := tensor.CPU{}
	for _, s := range pl.Steps {
		switch s.Kind {
		case StepInput:
			t, err := InputValue(s, inputs)
			if err != nil {
				return nil, &program.Error{Err: err}
			}
			vals[s.Name] = t
		case StepBoxing:
			t, err := cpu.Materialize(vals[s.Reads()[0]]) // a boxing keeps the values
			if err != nil {
				return nil, &program.Error{Err: err}
			}
			vals[s.Name] = t
		case StepOp:
			in := make([]tensor.Tensor, len(s.Reads()))
			for i, a := range s.Reads() {
				in[i] = vals[a]
			}
			t, err := s.Operation().Local(cpu, in, s.Shape)
			if err != nil {
				return nil, &program.Error{Err: fmt.Errorf("step %s: %w", s.Name, err)}
			}
			vals[s.Name] = t
		}
	}
	return pl.collect(func(name string) (tensor.Tensor, error) { return cpu.Materialize(vals[name]) })
}

// collect gathers the values a run returns: every program name, and the
// gradient of every name that has one, as grad_NAME.
func (pl *Plan) collect(full func(string) (tensor.Tensor, error)) (Values, error) {
	out := Values{}
	take := func(as, step string) error {
		t, err := full(step)
		if err != nil {
			out.Release()
			return &program.Error{Err: fmt.Errorf("gathering %s: %w", as, err)}
		}
		out[as] = t
		return nil
	}
	for _, st := range pl.Program.Stmts {
		if st.Kind != program.Grad {
			if err := take(st.Name, st.Name); err != nil {
				return nil, err
			}
		}
	}
	for name, step := range pl.Grads {
		if err := take(graph.GradName(name), step); err != nil {
			return nil, err
		}
	}
	return out, nil
}
