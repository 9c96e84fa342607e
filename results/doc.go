// Package results runs what a scene shows and says what came out: the
// scene describes its op as data (viz.Work), and Compute runs it, on a
// tensor.Backend for an index scene's kernel or on sbp's simulated devices
// for a shard scene, checks the result against the CPU reference and
// writes the section every front end's results panel shows.
//
// # Overview
//
// viz draws and describes; it never computes. Everything that allocates
// a result lives here, behind the tensor.Backend seam: the CPU reference,
// the WGSL kernels on WebGPU natively or in the browser, and any engine
// that runs sbp's plans. A front end (the CLI, the desktop app through
// app/session's compute worker, the playground through wasm/jsapi) calls
// Compute and shows the Section.
//
// # Errors
//
// A result past the result budget (tensor.CheckResult) is refused with
// tensor's one-line error before anything is allocated.
//
// # Cancellation
//
// Compute returns ctx.Err() soon after its context is cancelled, so a
// superseded compute, or one whose window closes, stops early.
// tensor.Backend takes no context, so Compute hands every kernel a
// backend that checks ctx first: the backend under test, the simulated
// devices built on it (each scattered shard, boxing piece, device's op
// and program step is a call) and the CPU reference. The CPU also checks
// inside a kernel: it runs one call as slabs of the output's first dim,
// about 4 Mi elements of work each, the same kernel on narrowed views, so
// the values are the kernel's own. What cannot stop midway: a kernel
// dispatched to the GPU, a reduction over the first dim, and a program's
// one-device reference (planner.Plan.Reference takes no backend), which
// are checked before they start.
//
// # Platform support
//
// Pure Go; builds for GOOS=js.
package results
