// Package importer turns a learner's PyTorch module into a program of
// package sbp/program: `stridelab import`.
//
// # Overview
//
// [Import] runs trace.py on the machine's PyTorch (the interpreter
// internal/python finds): the module is built with CLASS(**kwargs) after
// torch.manual_seed(seed), put in eval mode (dropout is the identity),
// and its forward, which returns the scalar loss, is traced by make_fx
// with tracing_mode="fake" over functional_call: aten ops with shapes,
// the parameters as the graph's inputs, nothing of the model's size
// allocated. Whatever the forward computes from neither a parameter nor
// an example (a causal mask, positions) is folded there into constants.
// The Go side then writes each aten op as statements of the language
// (ops.go, one table), each line ending in a comment naming the module
// path it came from, and writes DIR:
//
//	model.st      the program: parameters `input NAME SHAPE SBP from NAME.npy`,
//	              examples likewise (integer ones, token ids, as const),
//	              constants `const`, the ops, the loss last, then grad LOSS
//	params.json   {"parameters": {PATH: {"input", "file", "shape"}}, "examples": …, "loss": NAME}
//	NAME.npy      every parameter's, example's and constant's values (when
//	              the examples carry values)
//
// # How aten ops become statements
//
// Views (view, _reshape_alias, _unsafe_view, unsqueeze, t, transpose,
// permute, expand) are the language's reshape, transpose, permute and
// expand; clone, detach and alias name their argument; mm, bmm and addmm
// are matmul (and add); the elementwise ops are theirs, a Python number
// a scale or a constant. Ops the language has no word for are written
// out of its ops, with the values and gradients torch gives:
//
//	gelu            ½x·(1 + erf(x/√2)); tanh form ½x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
//	sigmoid, silu   1/(1 + e^−x), x·sigmoid(x)
//	layer_norm      (x − mean)·rsqrt(mean(square(x − mean)) + eps)·w + b
//	log_softmax     (x − max) − log Σ e^(x − max)
//	embedding       gather(table, ids) of i32 ids; where something else reads
//	                the ids too, one-hot(ids)·table (eq with 0…V−1, a matmul)
//	nll_loss        −Σ one-hot(target)·logp / N (mean) or −Σ … (sum), the
//	                rows of ignore_index left out
//	gather (last)   Σ_c x[…, c]·one-hot(index)[…, j, c]
//	split, chunk    a slice a piece
//	masked_fill     with a constant mask: x·keep + fill (both folded)
//
// The embedding's vocabulary-parallel layout (the table split along the
// vocabulary, S(0), the ids whole) makes the output partial, P(sum), as
// Megatron-LM's VocabParallelEmbedding does: gather's signature, from
// OneFlow's list. The one-hot form costs a matmul's FLOPs and a one-hot
// [tokens, V] tensor, which the gather does not; it is written only
// where something besides an embedding reads the ids.
//
// An op the table has not is refused in one line naming the op and the
// module path.
//
// # Platform support
//
// Native only (it starts Python): not GOOS=js.
package importer
