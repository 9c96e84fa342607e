package engine

import (
	"context"
	"os"
	"time"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// Sim is the embedded engine: the simulated devices of package sbp, in
// this process, each running its kernels on Backend (the CPU reference
// when nil). It runs program.Plan.Run; its bytes are the plan's (a copy
// between two buffers moves what the plan counts), and it times the run
// as a whole.
type Sim struct {
	Backend tensor.Backend
}

// Name returns "sim".
func (Sim) Name() string { return "sim" }

// Run runs plan on the simulated devices. ctx is checked before the run
// starts; a simulated run is not interrupted.
func (e Sim) Run(ctx context.Context, plan *program.Plan, inputs program.Values) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ranks, err := Planned(plan)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	vals, err := plan.Run(e.Backend, inputs)
	if err != nil {
		return nil, err
	}
	pid := os.Getpid()
	for i := range ranks {
		ranks[i].Pid = pid
		for _, s := range ranks[i].Steps {
			for k := range s.Collectives {
				c := &s.Collectives[k]
				c.Ran, c.SendBytes, c.RecvBytes = "copy", c.PlanSendBytes, c.PlanRecvBytes
			}
		}
	}
	return &Result{Engine: e.Name(), Values: vals, Ranks: ranks, Wall: time.Since(start),
		Notes: []string{"sim: every device is a buffer in this process; a collective is a copy between buffers, so the bytes are the plan's; the run is timed as a whole"}}, nil
}
