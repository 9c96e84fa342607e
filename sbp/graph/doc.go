// Package graph turns a program into the graph the planner and the
// engines work on: the program's statements as nodes, and after a grad
// the backward's nodes, each one tensor defined from earlier ones
// (Build). The backward is built from each op's gradient rule (its
// sbp.OpSpec's Grad), in reverse program order, out of the gradient ops
// OneFlow's autograd writes, each an op of sbp with signatures of its
// own, so the planner plans it like the forward.
//
// # The backward
//
// grad s seeds ds/ds with ones, laid out as s (B where s is partial, as
// OneFlow lays out the gradient of a partial result), and walks the ops
// backwards, each by its rule (docs/planner-sources.md §2b lists them
// with OneFlow's files): sum's gradient is broadcast_like(g, x), mean's
// a scalar_mul then broadcast_like, expand's a reduce_sum over the
// broadcast dims, repeat's sums the tiles (repeat_grad), add, sub, mul
// and div reduce the gradient to each operand's shape (reduce_sum_like),
// max and min route it to the operand (or cells) picked, split at ties,
// the unary ops are their *_grad ops (exp_grad(x, g), tanh_grad(y, g),
// relu_grad(y, g), …; neg's is neg), softmax's is softmax_grad(y, g),
// scale's a scale, matmul's are matmuls with transpose flags (g·bᵀ and
// aᵀ·g, matmul_t; broadcast_matmul_grad_b for a 2-D b under a batched a),
// transpose's a transpose, permute's a permute by the inverse order,
// reshape's a reshape back to x's shape, and a box is the identity. A
// tensor read more than once gets its gradients added up, as OneFlow's
// autograd accumulates them. The gradients are ops like any others,
// planned the same way, so their SBPs fall out: a B weight used on S(0)
// data gets a P(sum) gradient. Last, every input's gradient is boxed to
// the input's own SBP (a parameter's gradient lives as the parameter
// does): for a B weight this is the all-reduce of data parallelism. An
// input the result does not depend on gets a zero gradient.
//
// # Platform support
//
// Pure Go over tensor, sbp and program; it builds for GOOS=js.
package graph
