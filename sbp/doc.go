// Package sbp is stridelab's SBP core: OneFlow's consistent (global) view
// of a cluster as one "super device", run on simulated devices.
//
// # Overview
//
// A [Global] tensor has a logical shape, a [Placement] (a device type and
// the ranks of its devices, 1-D or an n-D mesh) and an [NdSbp]: one [SBP]
// per mesh dimension, saying how that mesh dim lays the tensor out —
//
//	S(axis)  split: device i holds the i-th BalancedSplit part of axis
//	B        broadcast: every device holds the whole tensor
//	P(op)    partial: every device holds a full-shape value, and the
//	         logical tensor is their sum (OneFlow's partial_sum), max or
//	         min (PyTorch DTensor's Partial("max"), Partial("min"))
//
// Uneven splits follow OneFlow's BalancedSplitter: the first n mod k parts
// get one more element, so 20 over 6 is 4,4,3,3,3,3 and 2 over 3 is 1,1,0.
// On a mesh, the dims apply in order, each to the range the ones before it
// left ([Shards]).
//
// # Ops, signatures and the physical rewrite
//
// An [Op] (Expand, Repeat, Binary, Unary, Reduce, Mean, Matmul, Softmax,
// Scale, the views Permute, Transpose and Reshape, and for backward
// passes RepeatGrad) lists its valid [Signature]s —
// the input SBPs under which every device can run the op on its own shard,
// and the SBP the outputs then have. [Infer] picks the
// signature per mesh dim and explains an illegal combination (matmul's
// S(0) x S(0): a row of the product needs all of b). [PlanOp] is the
// physical rewrite: per device, its input shard's shape and strides and
// the kernel arguments that produce its output shard — for the seed's
// expand of [4 3 1 2] to [2 4 3 4 2] under S(3) on 2 devices, input
// [4 3 1 1] with strides [3 1 1 1], expand size [2 4 3 4 1] and output
// strides [0 3 1 0 1]. A split axis is never broadcast, so a device whose
// shard of a split axis has 1 or 0 elements expands it to 1 or 0.
//
// # The table of ops
//
// Each op's file registers its [OpSpec]: the language's words for it
// ([OpWord]: how a statement's arguments build the op, how they are
// written back), its spelling on global tensors in OneFlow's and
// DTensor's Python, and on one device's shards in torch. The language's
// parser, its one-op programs, the Python writers and the torch engine
// read [Specs], [SpecOf], [WordsOf], [Words] and [SpellOp]: a new op is
// its own file here, plus its kernels and its gradient rule.
//
// # Boxing
//
// [PlanBoxing] converts between any two nd-SBPs on one placement, one mesh
// dim at a time, and names each step's collective ([Collective]):
// S->B all-gather, P->B all-reduce, P->S reduce-scatter, S(i)->S(j)
// all-to-all, B->S local slice, B->P local zero (the first device keeps the
// value, the others hold 0), S->P local pad. Every step counts the bytes
// each device sends and receives, so plans can be compared. [Global.Box]
// runs a plan on the devices' buffers; [Apply] boxes inputs to the
// cheapest valid signature and runs the op.
//
// # Simulated devices
//
// Each device of a Global holds its shard in a buffer of its own and runs
// its kernels on the [tensor.Backend] the tensor was given: the CPU
// reference or WebGPU. Communication is a copy between buffers. The full
// value ([Global.Full]) of every run equals the op's single-device result;
// package sbpcheck holds the random property suite that checks it.
//
// # Errors
//
// Every error is an [*Error] naming the op, the shapes and SBPs involved
// and what was wrong, wrapping one of [ErrParse], [ErrPlacement], [ErrSBP],
// [ErrSignature] or [ErrShape]. Nothing panics on bad input.
//
// # Platform support
//
// The package imports only the standard library and package tensor, and
// builds and tests under GOOS=js GOARCH=wasm.
package sbp
