// Package cluster says what a plan's steps cost in time on named
// hardware: a [Cluster] is one [Link] per mesh dim (latency α, bandwidth
// β) and one [Device] (peak FLOP/s, memory bandwidth and capacity), and
// the time model turns sbp's boxings and ops into seconds.
//
// # Overview
//
// A cluster is written as JSON, one link per mesh dim (a 1-D mesh has
// one), every number positive and in SI units:
//
//	{
//	  "name": "two-h100-nodes",
//	  "links": [
//	    {"alpha_s": 1e-05, "beta_bytes_per_s": 5e+10},
//	    {"alpha_s": 3e-06, "beta_bytes_per_s": 4.5e+11}
//	  ],
//	  "device": {"flops_per_s": 6.7e+13, "mem_bytes_per_s": 3.35e+12, "mem_capacity_bytes": 8e+10}
//	}
//
// or, in place of "links", "levels": a hierarchy innermost first, each
// {"devices": N, "alpha_s": …, "beta_bytes_per_s": …} joining N blocks
// of the level below ([Level]), which serves any mesh of its devices:
// [Cluster.On] gives each mesh dim of a placement the link of the
// outermost level its groups cross.
//
// [Parse] reads that form strictly (an unknown field, a missing or
// non-positive number, a string where a number goes: one line naming the
// field), [Cluster.File] writes it, and [Preset] names the built-in
// clusters: h100-node, two-h100-nodes, tpu-v5e and loopback, and the
// families h100-nodes:N (N nodes of 8 H100s) and tpu-v5e:RxC (a slice),
// whose numbers and their sources are listed in docs/reference.md.
// [Resolve] takes what a user types after --cluster: a preset's name,
// else a file. [Cluster.Check] says whether a cluster fits a placement:
// one link per mesh dim, or levels that hold every device it names.
//
// # The time model
//
// A collective along one mesh dim runs within each group of the n
// devices that differ only there, all groups at once. With S the bytes of
// the tensor the group holds as a whole (the gathered tensor of an
// all-gather, the reduced one of a reduce-scatter or all-reduce, the
// whole of an all-to-all) and the link of that mesh dim, a ring takes
//
//	all-gather       (n−1)·α + (n−1)/n · S/β
//	reduce-scatter   (n−1)·α + (n−1)/n · S/β
//	all-reduce       2·(n−1)·α + 2·(n−1)/n · S/β   (a reduce-scatter, then an all-gather)
//	all-to-all       (n−1)·α + (n−1)/n² · S/β
//	local-slice, local-zero, local-pad   0          (nothing moves)
//
// that is T = steps·α + fraction·S/β with the [Terms] of [RingTerms].
// A boxing ([TimeBoxing]) is the sum of its steps, each along its own
// mesh dim and link, a step's time that of its slowest group.
//
// A link may also carry, optionally, a collective's own α and β
// ([Link.Collectives], [Own]; "collectives" in the file form:
// {"reduce-scatter": {"alpha_s": …, "beta_bytes_per_s": …}, …}): that
// collective is then timed by its own formula above with them in place of
// the link's ([Link.For]). `stridelab calibrate` writes them for a library
// that runs collectives another way than the ring (gloo's reduce-scatter
// is an all-reduce and a slice); the presets and hand-written files of
// real clusters have none, and are timed by the ring formulas alone.
//
// An op's time on one device is the roofline ([Device.Roofline]):
//
//	T = max(FLOPs / flops_per_s, bytes read and written / mem_bytes_per_s)
//
// with the FLOPs and bytes of the device's own shards ([OpWork]): a
// matmul of an [..., m, k] shard by a [..., k, n] one is 2·batch·m·k·n
// FLOPs (batch the output's batch dims multiplied out), an
// elementwise op one FLOP per output element, a reduction one per input
// element, and expand, repeat, transpose, permute and reshape none (they only copy). Every
// device runs at once, so the slowest decides ([TimeOp]).
//
// [Fit] goes the other way: from measured times of collectives (a
// [Point] each) to the link whose ring times match them best, by least
// squares on relative residuals. `stridelab calibrate` fits this
// machine's gloo with it; the loopback preset is such a fit.
//
// The model has no overlap of communication with compute, no contention
// between the groups of two mesh dims, and no protocol overhead beyond α:
// it is the model of DTensor's redistribute_cost and of the JAX scaling
// book, good to a small factor, not a simulator.
//
// # Errors
//
// Every error is an [*Error] that names the cluster's source (a file or
// a preset), the field it blames and what was wrong, in one line, and
// wraps one of [ErrInvalid], [ErrNotFound], [ErrMesh] or [ErrUnsupported].
// Nothing panics on bad input.
//
// # Platform support
//
// The package imports only the standard library, tensor and sbp, and
// builds and tests under GOOS=js GOARCH=wasm.
package cluster
