// Package planner plans a program (package program) on its placement:
// every op's SBP signature, forward and backward (package graph), and
// the boxings between them, by OneFlow's eager rule ([Greedy]) or
// exactly ([Exact], a min-sum labelling solved by package minsum); each
// step with its bytes, what each device holds, and on a named cluster
// its time. A [Plan] runs on simulated devices ([Plan.Run]) and is what
// the engines, the scenes and the lessons read.
//
// # Planning
//
// Every op may run under any of its signatures: for each layout of its
// inputs, every output that layout allows (sbp.Candidates: expand's B
// input gives B or S(d), a sum's S input S or P). A tensor that its
// readers need in several layouts is boxed once per distinct layout,
// each boxing starting from the tensor or from a copy already made for
// another reader (a B copy is sliced to S(1) for free), along the
// cheapest tree of boxings; a boxing step names the copy it started
// from (Step.FromCopy), and the name keeps its own SBP, as in OneFlow's
// eager mode.
//
// [Greedy] is OneFlow's eager rule, transcribed from its source: ops in
// program order, each taking from OneFlow's own list for the op
// (sbp.EagerSignatures) the signature its producers' layouts match, else
// the cheapest by OneFlow's copy cost (on a 1-D mesh the order value and
// the legacy cost of SortSbpSignatureListByCopyCost; on a 2-D mesh
// GreedilyFindMinCopyCostNdSbp); the boxings it then needs are reported
// in stridelab's bytes. [Exact] picks the signatures of the whole
// program, forward and backward, that send the fewest bytes in all: a
// min-sum labelling of the program's graph (each tensor pays for the
// boxings its readers need), solved by variable elimination. Where the
// whole program's elimination is wide (a deep program with its
// backward), the LP relaxation's bound (sequential reweighted message
// passing) first drops every candidate that is in no optimal plan, and
// the elimination runs on the rest: the optimum over the full space all
// the same. It refuses only when the elimination's largest table would
// pass [ExactBound] entries, or its tables together [ExactWork], and
// says how large they are and how many candidates the bound kept.
//
// On a named cluster ([Options].Cluster) every step is timed (a boxing
// by its collectives' ring times along the mesh dims they cross, an op by
// its slowest device's roofline) and the plan gains its time, compute
// and communication apart and overlapped on two streams ([Timing]);
// under [Cost] Time, the default with a cluster, exact minimises that
// time instead of the bytes. Under Greedy the exact total is
// computed beside it only when its elimination is small (a scene is
// rebuilt on every keystroke); Plan.ExactRefused says when it was not.
//
// # Memory
//
// Every step says what each device holds while it runs
// (Step.HeldBytes): its shard of every live value (a split's balanced
// part, B whole, a partial's full-size buffer), the inputs from the
// start to the end, the inputs' gradients from where they are made to
// the end, and every other value, boxed copies included, from its step
// to its last reader (so the backward keeps the forward values it
// reads). [Plan.Peak] is the most each device holds and where, and
// [Plan.Capacity] refuses a plan some device cannot hold, naming the
// device, the step and the largest values held there.
//
// # Running
//
// [Plan.Run] runs a plan on simulated devices (sbp.Global) on any
// tensor.Backend, and [Plan.Reference] on one CPU device; every named
// tensor and gradient of the two is equal. Both are refused before
// anything is allocated when every tensor the run holds, on every device,
// would pass the result budget ([Plan.CheckBudget]).
//
// # Platform support
//
// Pure Go over tensor, sbp and its sibling packages; it builds for
// GOOS=js.
package planner
