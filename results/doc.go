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
// tensor's one-line error before anything is allocated. Compute returns
// ctx.Err() when its context is cancelled: it checks between the backend's
// run and the CPU reference's, so a superseded compute stops early.
//
// # Platform support
//
// Pure Go; builds for GOOS=js.
package results
