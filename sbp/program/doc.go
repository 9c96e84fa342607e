// Package program is OneFlow's global view for a whole program: people
// write ops on global tensors as if on one device, and the planner picks
// every op's SBP signature and inserts the boxing the inputs need; with
// grad it appends the backward, where data-parallel training's all-reduce
// of the weight gradient comes from.
//
// # The language
//
// One statement a line, or several separated by ';'; '#' starts a
// comment. The words are the CLI's:
//
//	placement 4                      # 4 | 0-3 | cpu:0,1,2,3 | [[0,1],[2,3]], as --placement
//	x = input 64,32 S(0)             # shape and SBP ((S(0), B) on a 2-D mesh); values 0, 1, 2, … (float32)
//	w = input 32,16 B from w.npy     # or the logical values of a .npy file
//	u = input 16,16 B from uniform   # or values spread over [-1, 1): tensor.Uniform(name, shape)
//	y = matmul x w                   # also batched: [..., m, k] x [..., k, n], batch dims broadcast
//	b = input 16 B
//	z = add y b                      # add sub mul div max min, with NumPy broadcasting
//	h = tanh z                       # exp log neg sqrt rsqrt tanh relu, elementwise
//	p = softmax h -1                 # softmax along one dim (negative counts from the end)
//	a = scale h 0.5                  # times a constant (which gets no gradient)
//	e = expand h 2,64,16             # expand SIZE (-1 keeps a dim), repeat TIMES
//	v = reshape e 2,8,8,16           # the same elements, another shape (one size may be -1)
//	q = permute v 0,2,1,3            # dim k of q is dim order[k] of v; transpose swaps the last two
//	s = sum e 1,1,1                  # sum | max | min | mean TARGET: reduce to a shape
//	t = box y B                      # an explicit boxing (OneFlow's to_global)
//	grad s                           # the backward from s, seeded with ones
//
// The placement comes first; names are defined once, before use; grad
// comes last. A fault is an [*Error] in one line naming the line, the
// column, the statement and the values involved.
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
// # The backward
//
// grad s seeds ds/ds with ones, laid out as s (B where s is partial), and
// walks the ops backwards, each by its rule: expand's gradient is the
// broadcast-reduce (sum over the broadcast dims), repeat's sums the
// tiles, sum's is an expand (mean's an expand of g/count), add/sub/mul/div
// reduce the broadcast gradient to each operand's shape, max and min
// route it to the operand (or cells) picked, split at ties, the unary
// ops multiply by their derivative (exp g·y, log g/x, neg −g, sqrt
// g/(2y), rsqrt −g·y³/2, tanh g − g·y², relu g where x > 0), softmax's
// along d is y·(g − sum(g·y, d)) (mul, sum keeping d as 1, sub, mul),
// scale's by C is the gradient scaled by C,
// matmul's are
// g·bᵀ and aᵀ·g (each matrix of a batch transposed), summed over the
// batch dims the operand broadcast, transpose's a transpose, permute's a
// permute by the inverse order, reshape's a reshape back to x's shape, and
// a box is the identity. The gradients are ops like any others, planned
// the same way, so their SBPs fall out: a B weight used on S(0) data gets
// a P(sum) gradient. Last, every input's gradient is boxed to the input's
// own SBP (a parameter's gradient lives as the parameter does): for a B
// weight this is the all-reduce of data parallelism. An input the result
// does not depend on gets a zero gradient.
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
// Pure Go over tensor and sbp; no file access (the caller reads the .npy
// files a program names), so it builds for GOOS=js.
package program
