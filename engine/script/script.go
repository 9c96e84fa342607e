package script

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// Engine is a distributed engine a plan is written out for.
type Engine string

// The engines, by the names the command line and the playground use.
const (
	OneFlow Engine = "oneflow" // OneFlow's global tensors: flow.placement, flow.sbp, to_global
	DTensor Engine = "pytorch" // PyTorch's DTensor: DeviceMesh, Shard / Replicate / Partial, redistribute
	Torch   Engine = "torch"   // plain torch.distributed: each rank's shards, local ops and collectives spelled out
)

// ParseEngine returns the engine named s: oneflow, pytorch or torch.
func ParseEngine(s string) (Engine, error) {
	for _, e := range []Engine{OneFlow, DTensor, Torch} {
		if string(e) == s {
			return e, nil
		}
	}
	return "", &Error{Engine: Engine(s), Detail: "the engines are oneflow, pytorch (DTensor) and torch (torch.distributed)", Err: ErrEngine}
}

// Sentinels for errors.Is.
var (
	ErrEngine   = errors.New("no such engine")
	ErrSpelling = errors.New("the engine has no spelling of it")
)

// Error is the error type of this package. Its message reads
//
//	emit <engine>: <detail>
//
// for example "emit oneflow: OneFlow has only partial_sum, so P(max) has
// no OneFlow spelling; DTensor (pytorch) has Partial("max")". Err is
// what it wraps: one of the sentinels, or the fault of the plan step
// that could not be written (an sbp or tensor error). An error that
// belongs to a statement of the program comes as a *program.Error
// naming the statement and wrapping the *Error.
type Error struct {
	Engine Engine
	Detail string
	Err    error
}

func (e *Error) Error() string { return "emit " + string(e.Engine) + ": " + e.Detail }

// Unwrap returns the sentinel or the step's fault.
func (e *Error) Unwrap() error { return e.Err }

// Options say where a written program finds its inputs and what it does
// with its results.
type Options struct {
	// Command is the stridelab command line the program came from, for
	// its header.
	Command string
	// Files maps an input's name to the .npy file its values are read
	// from, overriding the program's own values (sbp run's --in).
	Files map[string]string
	// Path maps an input's from-file, as the program names it, to the
	// path the written program opens (the program's folder joined to
	// it, say); nil keeps it as written.
	Path func(from string) string
	// OutDir, when set, makes the program save every named tensor and
	// gradient as OutDir/NAME.npy and OutDir/grad_NAME.npy; else it
	// prints them. (A torch.distributed file takes it as the default of
	// its own --out flag.)
	OutDir string
	// DType is the inputs' element type in a OneFlow or DTensor program;
	// zero is float32, what programs run on (`sbp plan --dtype` writes
	// others). A torch.distributed file runs on float32.
	DType tensor.DType
	// Result, when set, makes a OneFlow or DTensor program about that one
	// tensor, as the single-op commands want it: the forward only, no
	// comments on the steps, and at the end the engine's layout of
	// Result printed beside the plan's and its full value printed, or
	// saved to Out (a .npy file). A torch.distributed file ignores
	// Result and Out and saves every named tensor.
	Result, Out string
}

// Write writes plan as a Python program for the engine e: for OneFlow
// and DTensor a program on global tensors, every input laid out by its
// SBP, the forward's boxings and ops in the plan's order — every boxing
// the planner inserted an explicit to_global or redistribute, so the
// engine runs this plan and not one of its own — and with a grad the
// engine's own autograd; for Torch a standalone torchrun file with every
// rank's shards, local ops and collectives as literals. An SBP the
// engine cannot spell (OneFlow has only partial_sum) is a
// *program.Error naming the statement, wrapping an *Error that wraps
// ErrSpelling.
func Write(w io.Writer, plan *planner.Plan, e Engine, opt Options) error {
	if plan == nil || plan.Program == nil {
		return &Error{Engine: e, Detail: "no plan"}
	}
	switch e {
	case OneFlow, DTensor:
		return writeGlobal(w, plan, e, opt)
	case Torch:
		return writeTorch(w, plan, opt)
	}
	_, err := ParseEngine(string(e))
	return err
}

// results lists the names whose values a written program returns: every
// name the program defines, in its order, and the names whose gradient
// the plan has (grads), in the same order.
func results(plan *planner.Plan) (names, grads []string) {
	for _, st := range plan.Program.Stmts {
		if st.Kind == program.Grad {
			continue
		}
		names = append(names, st.Name)
		if _, ok := plan.Grads[st.Name]; ok {
			grads = append(grads, st.Name)
		}
	}
	return names, grads
}

// stepError is the fault of writing step i of a plan.
func stepError(e Engine, i int, kind planner.StepKind, name string, err error) error {
	return &Error{Engine: e, Detail: fmt.Sprintf("step %d (%s %s): %v", i, kind, name, err), Err: err}
}

// result is a value a program returns: a name, or grad_NAME for a
// gradient, and the index of the plan step that holds it.
type result struct {
	name string
	step int
}

// gathered lists the values a program returns (results), ordered by the
// step that holds them, program order among those of one step.
func gathered(plan *planner.Plan) []result {
	at := map[string]int{}
	for i, s := range plan.Steps {
		at[s.Name] = i
	}
	names, grads := results(plan)
	var out []result
	for _, name := range names {
		out = append(out, result{name, at[name]})
	}
	for _, name := range grads {
		out = append(out, result{graph.GradName(name), at[plan.Grads[name]]})
	}
	slices.SortStableFunc(out, func(x, y result) int { return x.step - y.step })
	return out
}
