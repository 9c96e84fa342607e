package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// Sim is the embedded engine: the simulated devices of package sbp, in
// this process, each running its kernels on Backend (the CPU reference
// when nil). It runs planner.Plan.RunMoved; its bytes are what the
// simulated collectives moved between the devices' buffers, counted as
// each piece moved (sbp.Moved), and it times the run as a whole.
type Sim struct {
	Backend tensor.Backend
}

// Name returns "sim".
func (Sim) Name() string { return "sim" }

// Run runs plan on the simulated devices. ctx is checked before the run
// starts; a simulated run is not interrupted.
func (e Sim) Run(ctx context.Context, plan *planner.Plan, inputs planner.Values) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ranks, err := Planned(plan)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	vals, moved, err := plan.RunMoved(e.Backend, inputs)
	if err != nil {
		return nil, err
	}
	pid := os.Getpid()
	for i := range ranks {
		ranks[i].Pid = pid
		for k, s := range ranks[i].Steps {
			if len(moved[k]) != len(s.Collectives) {
				vals.Release()
				return nil, fmt.Errorf("engine: sim: step %s ran %d collectives, the plan has %d", s.Name, len(moved[k]), len(s.Collectives))
			}
			for j := range s.Collectives {
				c, m := &s.Collectives[j], moved[k][j]
				c.Ran, c.SendBytes, c.RecvBytes = "copy", m.SendBytes[i], m.RecvBytes[i]
				if m.Collective != c.Collective || m.MeshDim != c.MeshDim {
					c.Note = fmt.Sprintf("sim ran %s on mesh dim %d", m.Collective, m.MeshDim)
				}
			}
		}
	}
	return &Result{Engine: e.Name(), Values: vals, Ranks: ranks, Wall: time.Since(start),
		Notes: []string{"sim: every device is a buffer in this process; a collective copies pieces between buffers, and each piece a device takes from another's is counted as it is copied; the run is timed as a whole"}}, nil
}
