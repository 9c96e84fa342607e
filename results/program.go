package results

import (
	"context"
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// runProgram runs a program's plan on the simulated devices (on b) and on
// one CPU device, and says for every named tensor and gradient whether
// the two agree: a table of names, shapes and largest differences.
func runProgram(ctx context.Context, w *viz.ProgramWork, b tensor.Backend) (viz.Section, error) {
	got, err := w.Plan.Run(b, nil)
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
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	table := [][]string{{"tensor", "shape", "vs one device"}}
	agree := 0
	for _, n := range names {
		verdict := "equal"
		switch d, ok := maxDiff(got[n], want[n]); {
		case !ok:
			verdict = fmt.Sprintf("shape %v, one device's %v", got[n].Shape(), want[n].Shape())
		case d > 1e-4*(1+maxAbs(want[n])):
			verdict = fmt.Sprintf("differs by %g", d)
		default:
			agree++
		}
		table = append(table, []string{n, got[n].Shape().String(), verdict})
	}
	sec.Lines = []string{fmt.Sprintf("backend %s: %d of %d tensors and gradients equal the single-device run", b.Name(), agree, len(names))}
	sec.Table = table
	return sec, nil
}

// maxAbs is the largest |x| of t (float32).
func maxAbs(t tensor.Tensor) float64 {
	m := 0.0
	if v, err := tensor.Buffer[float32](t); err == nil {
		for _, x := range v[:t.NumElements()] {
			m = max(m, float64(max(x, -x)))
		}
	}
	return m
}
