package main

import (
	"fmt"
	"io"

	"github.com/stridelab/stridelab/engine/script"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// runOpOnEngine runs op as a one-statement program (program.OneOp) on
// the torch engine: the plan, each rank's report, the result checked
// against the simulated run's and one device's, then the result written
// to out (whole) or printed.
func runOpOnEngine(stdout, stderr io.Writer, eng *engineFlags, be tensor.Backend, op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, paths []string, full []tensor.Tensor, out string) error {
	plan, err := opPlan(op, p, nds, shapesOf(full))
	if err != nil {
		return err
	}
	names := program.OneOpInputs(op)
	inputs := planner.Values{}
	for i, t := range full {
		if t.DType() != tensor.Float32 {
			f, err := tensor.ExactFloat32(t)
			if err != nil {
				return fmt.Errorf("%s: %v", paths[i], err)
			}
			defer f.Release()
			fmt.Fprintf(stderr, "stridelab: notice: %s: %v values converted to float32 (the engines run float32 programs)\n", paths[i], t.DType())
			t = f
		}
		inputs[names[i]] = t
	}
	vals, res, err := eng.run(plan, be, inputs)
	if err != nil {
		return err
	}
	defer vals.Release()
	check, err := compareSingle(be, op, full, vals["y"])
	if err != nil {
		return err
	}
	writeProgramPlan(stdout, plan)
	if err := writeReport(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "the gathered result agrees with the simulated run's and %s\n", check)
	return emit(vals["y"], out, stdout)
}

// planSource parses a program and plans it greedily, as OneFlow would.
func planSource(src string) (*planner.Plan, error) {
	prog, err := program.Parse(src)
	if err != nil {
		return nil, err
	}
	return planner.NewPlan(prog, planner.Greedy)
}

// writeOpScript writes op's one-statement program for the engine e
// (script.Write), about its result y (opt.Result), planned as opPlan
// plans it: the file runs the plan --engine torch runs.
func writeOpScript(w io.Writer, e script.Engine, op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, shapes []tensor.Shape, opt script.Options) error {
	plan, err := opPlan(op, p, nds, shapes)
	if err != nil {
		return err
	}
	opt.Result = "y"
	return script.Write(w, plan, e, opt)
}

// shapesOf lists the tensors' shapes.
func shapesOf(ts []tensor.Tensor) []tensor.Shape {
	shapes := make([]tensor.Shape, len(ts))
	for i, t := range ts {
		shapes[i] = t.Shape()
	}
	return shapes
}

// opPlan plans op on inputs of the shapes laid out by nds, as the
// one-statement program program.OneOp builds: what `sbp run` hands an
// engine (--engine torch) and writes out (--emit). It is planned
// exactly, under bytes: where the inputs fit a signature there is no
// boxing (the fewest bytes, then the fewest boxings) and the op runs
// under sbp.PlanOp's signature, the plan `sbp plan` prints (greedy,
// OneFlow's own list, may box inputs that already fit: it has no
// S(0) -> P(max)); else the inputs are boxed as sbp.Apply boxes them,
// to the signature whose boxing sends the fewest bytes.
func opPlan(op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, shapes []tensor.Shape) (*planner.Plan, error) {
	prog, err := program.OneOp(p, op, program.OneOpInputs(op), shapes, nds)
	if err != nil {
		return nil, err
	}
	return planner.NewPlan(prog, planner.Exact)
}
