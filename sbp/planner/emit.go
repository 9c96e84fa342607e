package planner

import (
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// EmitOptions say where an emitted program finds its files and puts its
// results.
type EmitOptions struct {
	// Command is the stridelab command line the program came from, for
	// its header.
	Command string
	// Path maps an input's from-file, as the program names it, to the
	// path the emitted program opens (the program's folder joined to
	// it, say); nil keeps it as written.
	Path func(from string) string
	// OutDir, when set, makes the program save every tensor and gradient
	// as OutDir/NAME.npy and OutDir/grad_NAME.npy; else it prints them.
	OutDir string
	// DType is the inputs' element type; zero is float32, what programs
	// run on (`sbp plan --dtype` emits others).
	DType tensor.DType
}

// Emit writes the plan as a program for a real engine, "oneflow" or
// "pytorch" (sbp.Emit): the inputs laid out by their SBPs, the forward's
// boxings and ops in the plan's order — every boxing the planner
// inserted is an explicit to_global (OneFlow) or redistribute (DTensor),
// so the engine runs this plan and not one of its own — and with grad
// the engine's own autograd: every input requires grad and the backward
// of the target's sum gives their gradients. Last, every tensor the
// program names and every input's gradient are printed or saved. An
// SBP the engine cannot spell (OneFlow has only partial_sum) is an
// *Error naming the statement.
func (pl *Plan) Emit(w io.Writer, engine string, opt EmitOptions) error {
	p := pl.Program
	pr := sbp.Program{Command: opt.Command, Placement: p.Placement, OutDir: opt.OutDir}
	dt := opt.DType
	if dt == 0 {
		dt = tensor.Float32
	}
	for _, s := range pl.Steps {
		if s.Pass != graph.Forward {
			continue
		}
		nd := s.Out()
		if err := sbp.Spells(engine, nd); err != nil {
			return pl.StatementError(s, err)
		}
		switch s.Kind {
		case StepInput:
			in := sbp.Input{Name: s.Name, Shape: s.Shape, DType: dt, Sbp: nd, Uniform: s.Values == program.ValuesUniform}
			if st := p.Lookup(s.Name); st != nil && st.From != "" {
				in.Path = st.From
				if opt.Path != nil {
					in.Path = opt.Path(st.From)
				}
			}
			pr.Inputs = append(pr.Inputs, in)
		case StepBoxing:
			note := fmt.Sprintf("stridelab boxes %s %s -> %s for %s: %s, %d bytes sent", s.Tensor, s.From, s.To, s.For, strings.Join(s.Collectives, ", "), s.SendBytes)
			if st := p.Lookup(s.Name); st != nil {
				note = fmt.Sprintf("line %d: %s (%s, %d bytes sent)", st.Line, st.Text, strings.Join(s.Collectives, ", "), s.SendBytes)
			}
			pr.Steps = append(pr.Steps, sbp.Statement{Name: s.Name, Args: s.args, To: nd, Note: note})
		case StepOp:
			note := fmt.Sprintf("%s under %s", s.Why, s.Signature)
			if st := p.Lookup(s.Name); st != nil {
				note = fmt.Sprintf("line %d: %s (stridelab: %s)", st.Line, st.Text, s.Signature)
			}
			pr.Steps = append(pr.Steps, sbp.Statement{Name: s.Name, Args: s.args, Op: s.op, OutSbp: nd, Note: note})
		}
	}
	for _, st := range p.Stmts {
		if st.Kind != program.Grad {
			pr.Results = append(pr.Results, st.Name)
		}
	}
	for _, st := range p.Stmts {
		if _, ok := pl.Grads[st.Name]; ok && st.Kind != program.Grad {
			pr.Grads = append(pr.Grads, st.Name)
		}
	}
	if p.Grad != nil {
		pr.Grad = p.Grad.Name
	}
	if err := sbp.Emit(w, engine, pr); err != nil {
		return &program.Error{Err: err}
	}
	return nil
}
