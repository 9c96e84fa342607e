// Package engine is where a program's plan runs: the seam between the
// planner (sbp/program) and the machines that carry a plan out.
//
// # Overview
//
// An [Engine] takes a *planner.Plan and the logical input values and
// returns a [Result]: the logical value of every named tensor and
// gradient, as planner.Plan.Run returns them, and a [RankReport] per
// device — its process, the time of each step, and for each boxing the
// bytes the device sent and received as the engine measured them beside
// the plan's ([CollectiveReport]). Two engines implement it:
//
//	Sim    the simulated devices of package sbp in this process (the
//	       embedded default): planner.Plan.RunMoved on a tensor.Backend
//	torch  one operating-system process per device, talking through
//	       torch.distributed's collectives (package engine/torch)
//
// Both take the same plan, and [Compare] checks one run's values against
// another's (the torch engine's against Sim's, Sim's against
// planner.Plan.Reference's single device).
//
// # Bytes
//
// The plan counts every boxing step per device (sbp.PlanBoxing): within a
// group of k devices along the step's mesh dim, device r holding s_r
// elements before and t_r after (e bytes each) —
//
//	all-gather      send e·s_r·(k-1)           recv e·Σ_{q≠r} s_q
//	all-reduce      send = recv = e·((s - p_r) + (k-1)·p_r),  p = BalancedSplit(s, k)
//	reduce-scatter  send e·(s - t_r)           recv e·(k-1)·t_r
//	all-to-all      send e·Σ_{q≠r} |s_r ∩ t_q|  recv e·Σ_{q≠r} |s_q ∩ t_r|
//	local-slice, local-zero, local-pad: 0
//
// An engine measures the tensors it hands its collectives. What it
// counts is what crossed between two devices: for an all-gather, the
// device's own shard once per peer and each peer's shard it received
// (unpadded); for an all-to-all, the pieces for and from the other
// devices (its own piece stays); for an all-reduce, whose algorithm the
// library picks, the ring above over the tensor handed. Where an engine
// lacks the plan's collective it says so in the report's notes and
// counts what it ran instead (the torch engine's reduce-scatter is an
// all-reduce and a slice: gloo has no reduce_scatter). Sim counts, as
// they are copied, the pieces a device's new buffer takes from another
// device's (sbp.Moved); its collectives move what the plan counts (its
// all-reduce is a reduce-scatter of the flattened values in
// BalancedSplit(s, k) parts, then an all-gather of the reduced parts), so
// its bytes equal the plan's, device by device, and its tests check that
// they do.
//
// # Time
//
// The torch engine times every collective of every boxing alone: all the
// devices wait at a barrier, then each runs the collective and takes
// the time from the barrier to the collective's return (gloo's calls on
// CPU tensors return once the tensor is whole, so nothing is left in
// flight), and the part of it spent in the library's call alone
// (CallTime: the rest is the device's own padding, slicing and joining
// of shards). That first call (FirstTime) is the one whose output the
// plan goes on with, and it is cold: the library's first call at that
// size, into tensors just made. So that a boxing is measured as
// `stridelab calibrate` measures the points its cluster is fitted to,
// the engine then runs the same collective again on the same input a
// few times (torch.Options.TimeRuns, 5 by default), each alone after a
// barrier, and drops their outputs (the values and bytes stay the first
// call's); each device's Time is the median of its runs (Runs). A
// collective's measured time is, run by run, the slowest device's, then
// the median of the runs (without runs, the slowest device's first
// call), and a boxing's is the sum of its collectives' (the barriers
// keep them apart). [Times] sets each boxing beside the time the plan predicts
// for it on its cluster (planner.Step.TimeS, cluster.TimeBoxing's ring
// times), collective by collective, with their ratio and the totals.
// Sim times only the whole run: its collectives' times are 0.
//
// # Values
//
// Engines add partial values in their own orders, so float32 values may
// differ in their last bits: [Compare] holds them to tensor's one rule,
// tensor.AgreeNormwise at tensor.Tolerance (|a − b| ≤ 1e-5·max(1, |a|,
// |b|, max|want|): a sum that cancels rounds relative to its terms, NaN
// against NaN), and integer values agree bit for bit.
//
// # Errors
//
// Run refuses a plan whose run would pass the result budget before
// anything is allocated or started (planner.Plan.CheckBudget); an
// engine's own failures are one line naming the device and the step.
//
// # Platform support
//
// Pure Go over tensor, sbp and sbp/program: it builds for GOOS=js, where
// Sim runs in the browser. Engines that start processes live in
// sub-packages.
package engine
