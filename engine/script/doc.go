// Package script writes a plan as a Python program for a real
// distributed engine, so that a plan studied here runs on a cluster.
//
// # Overview
//
// [Write] takes a *planner.Plan (package sbp/planner: a program's steps,
// each op under its signature and each boxing the planner chose) and an
// [Engine]:
//
//	OneFlow  global tensors: flow.placement, flow.sbp, to_global
//	DTensor  PyTorch's DTensor: DeviceMesh, Shard / Replicate / Partial,
//	         redistribute (spelled pytorch, as the command line says it)
//	Torch    plain torch.distributed, one process per device: each
//	         rank's shards, local ops and collectives as literals
//
// A OneFlow or DTensor program lays every input out by its SBP and runs
// the forward's boxings and ops in the plan's order; every boxing the
// planner inserted is an explicit to_global or redistribute, so the
// engine runs this plan and not one of its own, and a comment above each
// step names its statement and the plan's signature (or why the planner
// inserted it). With a grad, the
// engine's own autograd runs the backward of the target's sum. Last,
// every named tensor and gradient is printed or saved (Options.OutDir).
// A torch.distributed file spells out what the engines above decide for
// themselves: this rank's block of every input, every op on the local
// shards with this rank's arguments (sbp.PlanOpAs's rewrite), every
// boxing as the collectives the plan counts, and at the end every value
// gathered and saved by rank 0. It holds the torch engine's local
// arithmetic inline (torch.OpsPython), so it computes as that engine's
// workers do, and needs no DTensor.
//
// # One tensor
//
// The single-op commands (`stridelab sbp plan`, `sbp run`, `sbp boxing`)
// write their one-statement program (program.OneOp, or a box statement)
// through the same Write, with Options.Result naming the tensor the
// file is about: a OneFlow or DTensor file then holds the forward
// without the comments and, at its end, prints that tensor's layout
// beside the plan's and its full value, or saves the value
// (Options.Out). A torch.distributed file is the same either way.
//
// # Errors
//
// An SBP the engine cannot spell (OneFlow has only partial_sum) is a
// *program.Error naming the statement, wrapping an [*Error] that wraps
// [ErrSpelling]; an unknown engine is an *Error wrapping [ErrEngine].
// Every fault of a plan is an *Error, or a *program.Error around one,
// and the *Error's message starts "emit ENGINE:"; a failed write is the
// writer's own error.
//
// # Platform support
//
// Pure Go; it imports the torch engine for its Python source only. The
// programs it writes need Python with NumPy and the engine: OneFlow,
// PyTorch with DTensor, or any torch with torch.distributed.
package script
