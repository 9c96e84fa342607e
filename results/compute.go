package results

import (
	"context"
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// Compute runs the scene's op on arange inputs on backend b (the CPU
// reference when b is nil), checks the result against the CPU reference
// and describes it: the backend, the shape, whether the two agree and the
// first values.
//
// Once ctx is done Compute returns ctx.Err() at its next check: before
// every kernel call, on b and on the simulated devices alike, and inside
// a CPU kernel between slabs of its output (cancellable).
func Compute(ctx context.Context, s *viz.Scene, b tensor.Backend) (viz.Section, error) {
	if b == nil {
		b = tensor.CPU{}
	}
	return compute(ctx, s, b, stoppable(ctx, b), stoppable(ctx, tensor.CPU{}))
}

// compute is Compute with b already wrapped as run, and ref the CPU
// reference, both stopping once ctx is done.
func compute(ctx context.Context, s *viz.Scene, b, run, ref tensor.Backend) (viz.Section, error) {
	w := s.Work()
	if err := tensor.CheckResult(w.Title(), tensor.Float32, w.OutShape()); err != nil {
		return viz.Section{}, err
	}
	if err := ctx.Err(); err != nil {
		return viz.Section{}, err
	}
	var got, want tensor.Tensor
	var err error
	switch w := w.(type) {
	case *viz.ProgramWork:
		return runProgram(ctx, w, b, run)
	case *viz.KernelWork:
		got, want, err = runKernel(w, run, ref)
	case *viz.ShardWork:
		got, want, err = runShards(ctx, w, run, ref)
	default:
		return viz.Section{}, fmt.Errorf("results: a scene's work of type %T: nothing runs it", w)
	}
	if err != nil {
		return viz.Section{}, err
	}
	defer got.Release()
	defer want.Release()
	return section(w.Title(), b, got, want), nil
}

// aranges returns a tensor 0, 1, 2, … of each shape; release them with
// releaseAll.
func aranges(shapes []tensor.Shape) ([]tensor.Tensor, error) {
	var ins []tensor.Tensor
	for _, sh := range shapes {
		x, err := tensor.Arange(tensor.Float32, sh)
		if err != nil {
			releaseAll(ins)
			return nil, err
		}
		ins = append(ins, x)
	}
	return ins, nil
}

func releaseAll(ts []tensor.Tensor) {
	for _, t := range ts {
		t.Release()
	}
}

// runKernel runs w's kernel on b, then on the CPU reference ref.
func runKernel(w *viz.KernelWork, b, ref tensor.Backend) (got, want tensor.Tensor, err error) {
	ins, err := aranges(w.Inputs)
	if err != nil {
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	defer releaseAll(ins)
	var run func(be tensor.Backend) (tensor.Tensor, error)
	switch w.Op {
	case viz.Materialize:
		xv, err := ins[0].WithLayout(w.View)
		if err != nil {
			return tensor.Tensor{}, tensor.Tensor{}, err
		}
		run = func(be tensor.Backend) (tensor.Tensor, error) {
			y, err := be.Materialize(xv) // for a reshape that needs a copy: .contiguous()
			if err != nil || w.ReshapeTo == nil {
				return y, err
			}
			return y.Reshape(w.ReshapeTo) // then a view of the copy
		}
	case viz.Repeat:
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(ins[0], w.Times) }
	case viz.Binary:
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(w.BinaryOp, ins[0], ins[1]) }
	case viz.Reduce:
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Reduce(w.ReduceOp, ins[0], w.Out) }
	default:
		return tensor.Tensor{}, tensor.Tensor{}, fmt.Errorf("results: kernel op %d: nothing runs it", w.Op)
	}
	return runTwice(run, b, ref)
}

// runTwice runs run on b and on the reference ref (which stops at once
// when the context was cancelled meanwhile).
func runTwice(run func(tensor.Backend) (tensor.Tensor, error), b, ref tensor.Backend) (got, want tensor.Tensor, err error) {
	if got, err = run(b); err != nil {
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	if want, err = run(ref); err != nil {
		got.Release()
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	return got, want, nil
}

// runShards scatters w's inputs over the simulated devices (on b), runs
// w there and gathers the result; the reference is the logical input
// (placement, boxing) or the op run whole on one CPU device ref (plan).
func runShards(ctx context.Context, w *viz.ShardWork, b, ref tensor.Backend) (got, want tensor.Tensor, err error) {
	ins, err := aranges(w.Inputs)
	if err != nil {
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	defer releaseAll(ins)
	var globals []*sbp.Global
	defer func() {
		for _, g := range globals {
			g.Release()
		}
	}()
	for i, x := range ins {
		g, err := sbp.Scatter(b, x, w.Placement, w.Sbps[i])
		if err != nil {
			return tensor.Tensor{}, tensor.Tensor{}, err
		}
		globals = append(globals, g)
	}
	out := globals[0]
	switch w.Kind {
	case viz.Box:
		if out, _, err = globals[0].Box(w.BoxTo); err != nil {
			return tensor.Tensor{}, tensor.Tensor{}, err
		}
		globals = append(globals, out)
	case viz.Apply:
		if out, _, err = sbp.Apply(w.Op, globals...); err != nil {
			return tensor.Tensor{}, tensor.Tensor{}, err
		}
		globals = append(globals, out)
	}
	if err := ctx.Err(); err != nil {
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	if got, err = out.Full(); err != nil {
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	if w.Kind == viz.Apply {
		want, err = w.Op.Local(ref, ins, w.Out)
	} else {
		want, err = tensor.Arange(tensor.Float32, w.Inputs[0]) // the logical input
	}
	if err != nil {
		got.Release()
		return tensor.Tensor{}, tensor.Tensor{}, err
	}
	return got, want, nil
}

// section describes a computed result beside the CPU reference's: the
// backend, the shape, whether they agree (tensor.Agree at
// tensor.Tolerance, in tensor.Agreement's words) and the first values.
func section(what string, b tensor.Backend, got, want tensor.Tensor) viz.Section {
	sec := viz.Section{Title: what + " on " + b.Name()}
	sec.Lines = append(sec.Lines, fmt.Sprintf("backend %s, output %v float32", b.Name(), got.Shape()))
	if ag, err := tensor.Agree(got, want, tensor.Tolerance); err != nil {
		sec.Lines = append(sec.Lines, fmt.Sprintf("differs from the CPU reference: %v", err))
	} else {
		sec.Lines = append(sec.Lines, ag.Words("the CPU reference"))
	}
	sec.Lines = append(sec.Lines, FormatValues(got)...)
	return sec
}

// FormatValues writes t's first and last values as NumPy prints a
// summarised array, as rows of its last dim: at most 4 rows (2 first, 2
// last) of at most 6 values (3 first, 3 last), so at most 24 values.
func FormatValues(t tensor.Tensor) []string {
	shape := t.Shape()
	if len(shape) == 0 {
		return []string{fmt.Sprintf("value %g", t.At())}
	}
	n := t.NumElements()
	cols := shape[len(shape)-1]
	if n == 0 {
		return []string{"[] (empty)"}
	}
	rows := n / cols
	var out []string
	if len(shape) > 2 {
		out = append(out, fmt.Sprintf("values, as %d rows of the last dim:", rows))
	}
	shown := viz.Visible(rows, 5)
	for k, r := range shown {
		open, close := " [", "]"
		if len(shape) == 1 {
			open = "["
		} else if k == 0 {
			open = "[["
		}
		if k == len(shown)-1 && len(shape) > 1 {
			close = "]]"
		}
		if r == viz.Gap {
			out = append(out, " …")
			continue
		}
		var vals []string
		for _, c := range viz.Visible(cols, 7) {
			if c == viz.Gap {
				vals = append(vals, "…")
				continue
			}
			vals = append(vals, fmt.Sprintf("%g", t.At(shape.Unravel(r*cols+c)...)))
		}
		out = append(out, open+strings.Join(vals, " ")+close)
	}
	return out
}

// Hidden is computed section sec as a results panel shows it while a
// lesson's question is open (viz.Look.HideAnswers): its title, and a line
// saying the values are hidden until the question is answered (over
// arange inputs, an expand's values are the very offsets it reads). The
// session's Results and the playground's compute call show the same.
func Hidden(sec viz.Section) viz.Section {
	return viz.Section{Title: sec.Title, Lines: []string{"values " + viz.Hidden}}
}
