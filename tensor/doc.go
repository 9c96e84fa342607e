// Package tensor is stridelab's layout core: shapes, strided layouts, the
// views that share a buffer, broadcasting, dimension coalescing, index
// traces and the CPU reference kernels.
//
// # Overview
//
// A [Layout] maps an n-dimensional index to a position in a flat buffer:
//
//	Offset(i) = base + Σ_d i[d]·stride[d]
//
// Contiguous (row-major) strides are stride[n-1] = 1 and
// stride[d] = stride[d+1]·shape[d+1]. A [Tensor] is a typed buffer seen
// through a Layout. Kernels run through the [Backend] interface; [CPU] is the
// reference implementation that every other backend is checked against.
//
// Whether two runs agree is one rule, [AgreeValues]: NaN matches NaN, an
// infinity its own sign, anything else within a relative [Tolerance].
// [Agree] applies it to two tensors and [Agreement.Words] says the
// verdict: "equals" only for bit-equal values, "agrees … within 1e-5"
// otherwise. Every front end (the CLI, the results panel, the engines,
// the backend conformance suite) compares with them.
//
// # Views and aliasing
//
// Expand, Permute, Reshape and Slice return a new Layout (and, on a Tensor, a
// new Tensor over the same buffer). Nothing is copied and nothing is mutated:
// a Layout is an immutable value. Expand puts stride 0 on broadcast dims, so
// many output indices read one input element. Reshape returns [ErrNeedsCopy]
// when no single strided view can express the new shape. Repeat is never a
// view: [PlanRepeat] shows it as reshape + expand + reshape, and the last
// reshape needs a copy.
//
// # Errors
//
// Every error is an [*Error] that names the operation, the shapes and the
// offending dimension, and wraps one of the sentinels ([ErrShape],
// [ErrIndex], [ErrNeedsCopy], [ErrDType], [ErrParse], [ErrOverflow]) for
// errors.Is. Functions return errors for every bad input; only At-style
// accessors given an out-of-range index panic, as documented on them.
//
// # Platform support
//
// The package imports only the standard library (and its own
// internal/simd, which does too) and builds and tests under GOOS=js
// GOARCH=wasm, so the playground runs exactly this code. On amd64 the
// float32 loops of the binary kernel's four arithmetic ops and of sums run
// in internal/simd's SSE assembly, bit for bit the Go loops' results, with
// streaming stores for outputs past streamBytes; everywhere else, and
// under the purego build tag, the Go loops run.
package tensor
