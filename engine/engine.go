package engine

import (
	"context"
	"time"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
)

// Engine runs a program's plan: every input laid out as the plan says,
// every boxing and op on every device, and the logical values gathered.
type Engine interface {
	// Name is the engine's word, as --engine spells it: sim, torch.
	Name() string
	// Run runs plan on the logical input values given by name (an input
	// not given is 0, 1, 2, …, as in planner.Plan.Run) and returns the
	// logical value of every named tensor and gradient (grad_NAME), and
	// what each device did. It stops when ctx is done. A run past the
	// result budget is refused before anything starts.
	Run(ctx context.Context, plan *planner.Plan, inputs planner.Values) (*Result, error)
}

// Result is what a run returns: the values (as planner.Plan.Run's) and a
// report per device.
type Result struct {
	Engine string
	Values planner.Values
	// Ranks holds one report per device, in placement order.
	Ranks []RankReport
	// Wall is the whole run as the caller saw it: for an engine of
	// processes, from the first start to the last output read.
	Wall time.Duration
	// Notes says, once each, where the engine did other than the plan
	// names (a collective its library lacks), and how it ran.
	Notes []string
}

// RankReport is what one device did.
type RankReport struct {
	Position int   // the device's index in the placement, row-major over the mesh (torch's RANK)
	Rank     int   // the placement's rank at that position
	Coord    []int // its mesh coordinate
	Pid      int   // the process that ran it (the caller's own for sim)
	// Setup is the device's time before its first step: for an engine
	// of processes, loading its library and joining the others (torch:
	// import torch, init_process_group, the mesh's groups and a first
	// call of each collective); 0 for sim.
	Setup time.Duration
	// Steps holds one report per plan step, in the plan's order.
	Steps []StepReport
}

// StepReport is one plan step on one device.
type StepReport struct {
	Index int // the step's index in plan.Steps
	Name  string
	Kind  planner.StepKind
	// Time is the step's time on this device, as the engine measured it;
	// 0 where the engine times only the whole run (sim). For a boxing it
	// leaves out the barriers its collectives wait at (torch).
	Time time.Duration
	// Collectives holds, for a boxing, one report per sbp.Step of its
	// plan (sbp.PlanBoxing), in order; none for a boxing to the same SBP.
	Collectives []CollectiveReport
}

// CollectiveReport is one boxing step (one collective along one mesh
// dim) on one device: the bytes the plan counts beside the bytes the
// engine measured.
type CollectiveReport struct {
	MeshDim    int
	Collective sbp.Collective // what the plan names
	// Ran is what the engine called: "copy" (sim), "all_gather",
	// "all_reduce", "all_reduce+slice", "all_to_all_single", "local" (a
	// local slice, zero or pad), or "none" (a group of one device).
	Ran                          string
	PlanSendBytes, PlanRecvBytes int64
	// SendBytes and RecvBytes are the bytes the engine measured (see the
	// package doc for what each collective counts).
	SendBytes, RecvBytes int64
	// HandedBytes is the size of the tensors handed to the library call,
	// padding included; 0 for a local step or sim.
	HandedBytes int64
	// Time is the collective on this device alone: from the barrier that
	// every device leaves together to the collective's return (torch,
	// whose gloo calls return with the tensor whole); 0 for sim, which
	// times only the whole run. Where the engine ran it again to time it
	// warm (Runs), Time is the median of those runs; else it is the
	// run's own call, FirstTime. Times makes the collective's time of
	// the devices' (the slowest device's, run by run).
	Time time.Duration
	// CallTime is the part of Time spent in the library's call alone
	// (torch: all_gather, all_reduce, all_to_all_single), without the
	// device's own padding, slicing and joining around it; 0 for a local
	// step, a group of one device, and sim. Like Time, it is the median
	// of Runs' calls where there are Runs.
	CallTime time.Duration
	// FirstTime and FirstCallTime are the run's own call of the
	// collective, the one whose output the plan goes on with: the first
	// at its size on tensors just made (torch), so it pays for faulting
	// in fresh memory and whatever the library does on a first call.
	FirstTime, FirstCallTime time.Duration
	// Runs are the times of the collective run again on the same input
	// after the run's own call, each alone after a barrier of every
	// device, their outputs dropped (torch: Options.TimeRuns), as
	// `stridelab calibrate` times its points: warm. None for sim.
	Runs []time.Duration
	// Note says where the engine differs from the plan, or "".
	Note string
}

// Sent is the bytes the device sent in the step: as the engine measured
// them, and as the plan counts them.
func (s StepReport) Sent() (measured, planned int64) {
	for _, c := range s.Collectives {
		measured, planned = measured+c.SendBytes, planned+c.PlanSendBytes
	}
	return measured, planned
}

// Received is the bytes the device received in the step: as the engine
// measured them, and as the plan counts them.
func (s StepReport) Received() (measured, planned int64) {
	for _, c := range s.Collectives {
		measured, planned = measured+c.RecvBytes, planned+c.PlanRecvBytes
	}
	return measured, planned
}

// Planned returns the report skeleton of plan: per device, per step, the
// boxing steps with the plan's bytes (the measured ones left 0, Ran ""),
// for an engine to fill in.
func Planned(plan *planner.Plan) ([]RankReport, error) {
	p := plan.Program.Placement
	ranks := make([]RankReport, p.Size())
	for i := range ranks {
		ranks[i] = RankReport{Position: i, Rank: p.Rank(i), Coord: p.Coord(i), Steps: make([]StepReport, len(plan.Steps))}
	}
	for k, s := range plan.Steps {
		var b sbp.Boxing
		if s.Kind == planner.StepBoxing {
			var err error
			if b, err = s.PlannedBoxing(); err != nil {
				return nil, err
			}
		}
		for i := range ranks {
			sr := StepReport{Index: k, Name: s.Name, Kind: s.Kind}
			for _, st := range b.Steps {
				sr.Collectives = append(sr.Collectives, CollectiveReport{MeshDim: st.MeshDim, Collective: st.Collective,
					PlanSendBytes: st.Ranks[i].SendBytes, PlanRecvBytes: st.Ranks[i].RecvBytes})
			}
			ranks[i].Steps[k] = sr
		}
	}
	return ranks, nil
}
