package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
	"github.com/stridelab/stridelab/viz/render"
)

// torchWorkers keeps the torch engine's workers from one run for the
// next (torch.Pool): nil here, since a CLI process makes one run; the
// package's tests, which make many in one process, share one (TestMain).
var torchWorkers *torch.Pool

// engineFlags are --engine, --python and --timeout: where `sbp run`,
// `sbp boxing` and `sbp program` run a plan. sim is the simulated
// devices in this process (package engine's Sim); torch is one process
// per device talking through torch.distributed (package engine/torch),
// whose values are checked against sim's run of the same plan.
type engineFlags struct {
	name, python *string
	timeout      *time.Duration
	timeRuns     *int
}

func defineEngineFlags(fs *flagSet) *engineFlags {
	return &engineFlags{
		name:     fs.String("engine", "sim", "where the plan runs: sim (simulated devices in this process) or torch (one torch.distributed process per device, gloo on this machine's CPUs)"),
		python:   fs.String("python", "", "--engine torch: the interpreter its workers run (default: the first python3 that imports torch, else /usr/bin/python3)"),
		timeout:  fs.Duration("timeout", torch.DefaultTimeout, "--engine torch: the longest a run may take; past it every worker is killed"),
		timeRuns: fs.Int("time-runs", torch.DefaultTimeRuns, "--engine torch: after each collective's own call, run it this many more times on the same input, each timed after a barrier, and report their median, as calibrate measures (0: the own call's time alone)"),
	}
}

// check refuses an unknown engine, a timeout that is not positive, and
// --engine torch beside a flag it does not go with (--json, --emit).
func (f *engineFlags) check(others map[string]bool) error {
	switch *f.name {
	case "sim", "torch":
	default:
		return usagef("--engine %q: choose sim or torch", *f.name)
	}
	if *f.timeout <= 0 {
		return usagef("--timeout %v: give a positive duration, e.g. 120s", *f.timeout)
	}
	if *f.timeRuns < 0 {
		return usagef("--time-runs %d: give 0 or more", *f.timeRuns)
	}
	if f.torch() {
		for _, name := range []string{"json", "emit"} {
			if others[name] {
				return usagef("--engine torch runs the plan and prints its per-rank table; --%s does not go with it", name)
			}
		}
	}
	return nil
}

// torch reports whether the run goes to the torch engine.
func (f *engineFlags) torch() bool { return *f.name == "torch" }

// run runs plan on the simulated devices (be) and, for --engine torch,
// on torch.distributed, whose values must agree with the simulated
// run's (engine.Compare). It returns the engine's values (the caller
// releases them) and, for torch, its report.
func (f *engineFlags) run(plan *planner.Plan, be tensor.Backend, inputs planner.Values) (planner.Values, *engine.Result, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !f.torch() {
		res, err := engine.Sim{Backend: be}.Run(ctx, plan, inputs)
		if err != nil {
			return nil, nil, err
		}
		return res.Values, nil, nil
	}
	// Ask for the interpreter first: a missing torch is one line, before
	// any work.
	if _, err := torch.FindPython(ctx, *f.python); err != nil {
		return nil, nil, err
	}
	sim, err := engine.Sim{Backend: be}.Run(ctx, plan, inputs)
	if err != nil {
		return nil, nil, err
	}
	defer sim.Values.Release()
	runs := *f.timeRuns
	if runs == 0 {
		runs = -1 // torch.Options: none
	}
	res, err := torch.New(torch.Options{Python: *f.python, Timeout: *f.timeout, TimeRuns: runs, Pool: torchWorkers}).Run(ctx, plan, inputs)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range engine.Compare(res.Values, sim.Values) {
		if !a.Agrees {
			res.Values.Release()
			return nil, nil, fmt.Errorf("the torch engine's %s disagrees with the simulated run's: %s (a bug; please report it)", a.Name, a.Verdict(""))
		}
	}
	return res.Values, res, nil
}

// writeReport prints the torch engine's per-rank table and its notes.
func writeReport(w io.Writer, res *engine.Result) error {
	fmt.Fprintf(w, "\nran on %d torch.distributed processes in %v:\n", len(res.Ranks), res.Wall.Round(time.Millisecond))
	return engine.WriteTable(w, res)
}

// saveNpy writes t to path whole: a temporary file beside it, renamed
// when complete, so a failed run leaves no half-written file.
func saveNpy(path string, t tensor.Tensor) error {
	return render.WriteFileAtomic(path, func(w io.Writer) error { return npyfile.Encode(w, t) })
}
