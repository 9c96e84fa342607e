package results

import (
	"context"
	"fmt"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// runProgram runs a program's plan on the simulated devices (on run, b
// wrapped to stop once ctx is done: it stops between kernel calls) and on
// one CPU device, and says for every named tensor and gradient whether
// the two agree (engine.Compare): a table of names, shapes and verdicts. The
// one-device reference (planner.Plan.Reference) takes no backend, so it
// is only checked before it starts.
func runProgram(ctx context.Context, w *viz.ProgramWork, b, run tensor.Backend) (viz.Section, error) {
	got, err := w.Plan.Run(run, nil)
	if err != nil {
		return viz.Section{}, err
	}
	defer got.Release()
	if err := ctx.Err(); err != nil {
		return viz.Section{}, err
	}
	want, err := w.Plan.Reference(nil)
	if err != nil {
		return viz.Section{}, err
	}
	defer want.Release()
	sec := viz.Section{Title: w.What + " on " + b.Name()}
	table := [][]string{{"tensor", "shape", "vs one device"}}
	agreements := engine.Compare(got, want) // the tolerance every engine is checked with
	agree := 0
	for _, ag := range agreements {
		if ag.Agrees {
			agree++
		}
		table = append(table, []string{ag.Name, got[ag.Name].Shape().String(), ag.Verdict("")})
	}
	sec.Lines = []string{fmt.Sprintf("backend %s: %d of %d tensors and gradients agree with the single-device run", b.Name(), agree, len(agreements))}
	sec.Table = table
	return sec, nil
}
