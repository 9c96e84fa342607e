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
//	y = matmul x w
//	b = input 16 B
//	z = add y b                      # add sub mul div max min, with NumPy broadcasting
//	e = expand z 2,64,16             # expand SIZE (-1 keeps a dim), repeat TIMES
//	s = sum e 1,1,1                  # sum | max | min TARGET: reduce to a shape
//	t = box y B                      # an explicit boxing (OneFlow's to_global)
//	grad s                           # the backward from s, seeded with ones
//
// The placement comes first; names are defined once, before use; grad
// comes last. A fault is an [*Error] in one line naming the line, the
// column, the statement and the values involved.
//
// # Planning
//
// [NewPlan] walks the ops in order. Under [Greedy] (OneFlow's eager
// rule) an op whose inputs already form a valid signature runs as they
// are; otherwise its inputs are boxed to the valid signature whose boxing
// sends the fewest bytes (sbp.PlanBoxing's), ties to fewer boxings, then
// to the op's signature order. [Exact] picks the signatures of the whole
// program that send the fewest bytes in all, by dynamic programming over
// the layouts of the tensors still to be read; it refuses past
// [ExactBound] layouts, saying how many assignments an exhaustive search
// would need. A boxed copy serves the op that needed it, and a later op
// that needs the same copy reuses it; the name keeps its own SBP, as in
// OneFlow's eager mode.
//
// # The backward
//
// grad s seeds ds/ds with ones, laid out as s (B where s is partial), and
// walks the ops backwards, each by its rule: expand's gradient is the
// broadcast-reduce (sum over the broadcast dims), repeat's sums the
// tiles, sum's is an expand, add/sub/mul/div reduce the broadcast
// gradient to each operand's shape, max and min route it to the operand
// (or cells) picked, split at ties, matmul's are g·bᵀ and aᵀ·g, and a
// box is the identity. The gradients are ops like any others, planned
// the same way, so their SBPs fall out: a B weight used on S(0) data gets
// a P(sum) gradient. Last, every input's gradient is boxed to the input's
// own SBP (a parameter's gradient lives as the parameter does): for a B
// weight this is the all-reduce of data parallelism. An input the result
// does not depend on gets a zero gradient.
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
