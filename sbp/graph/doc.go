// Package graph turns a program into the graph the planner and the
// engines work on: the program's statements as nodes, and after a grad
// the backward's nodes, each one tensor defined from earlier ones
// (Build). The backward is built from each op's gradient rule, in
// reverse program order, out of the same ops the language has, so the
// planner plans it like the forward.
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
// # Platform support
//
// Pure Go over tensor, sbp and program; it builds for GOOS=js.
package graph
