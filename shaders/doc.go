// Package shaders implements tensor.Backend a second time, on the GPU:
// WGSL compute kernels (wgsl/*.wgsl, embedded) compiled and dispatched
// through WebGPU with github.com/oliverbestmann/webgpu. The same Go source
// runs natively (wgpu-native on Vulkan, Metal, D3D12 or GL) and in the
// browser (GOOS=js, the browser's WebGPU); the binding picks, not us.
//
// Each kernel call coalesces the dims first (tensor.Coalesce,
// tensor.ReduceGeometry), picks a pipeline cached by (kernel, dtype,
// coalesced rank, reduce pattern, vector width, operand loads, op, fan
// block), uploads the inputs' spans once, dispatches a 2-D grid in chunks
// that respect the device's limits, and reads the result back once.
//
// Work is shared out for the adapter at hand (Tuning). Elementwise lanes
// go in groups of 8 that walk forward through memory together, coalesced
// on a GPU and streamed by a CPU's SIMD lanes, and an item loads a fixed
// operand once for a block of up to 16 outputs (fanPlan). On a GPU, lanes
// that share an output combine in a workgroup tree; on a CPU adapter
// (lavapipe, SwiftShader), which runs a workgroup's lanes as SIMD vectors
// one after another and pays for every barrier, loop iteration and
// started invocation, reductions fold without barriers (few outputs: in
// chunks combined by a second dispatch), invocations take 8 to 32 items
// (as many as leave every thread 4 workgroups), and short loops are
// generated straight-line; lavapipe reads operands of up to 64 KiB from
// uniform bindings, which it gathers a vector at a time. SwiftShader, whose memory operations cost it
// more than its memory traffic (TuneCPUOpBound), walks broadcast binary
// ops instead (walkPlan): a lane holds the fixed operand in registers and
// steps down the dim it is fixed along. No kernel divides: coordinates
// come from multiplies by magic numbers the host computes per dim
// (divisor). Elementwise kernels past the storage binding limit run in output chunks, each binding only the
// input windows it reads; a reduction past it is halved along the dim that
// spans the most memory, as a split tensor reduces in package sbp.
// Row lookups (Gather) and their sums (ScatterAdd) take one output
// element per invocation; ScatterAdd reads its ids on the host and hands
// the device each row's positions in order, so its sums are
// deterministic.
package shaders
