// Package shaders implements tensor.Backend a second time, on the GPU:
// WGSL compute kernels (wgsl/*.wgsl, embedded) compiled and dispatched
// through WebGPU with github.com/oliverbestmann/webgpu. The same Go source
// runs natively (wgpu-native on Vulkan, Metal, D3D12 or GL) and in the
// browser (GOOS=js, the browser's WebGPU); the binding picks, not us.
//
// Each kernel call coalesces the dims first (tensor.Coalesce,
// tensor.ReduceGeometry), picks a pipeline cached by (kernel, dtype,
// coalesced rank, reduce pattern, vector width, operand loads, op), uploads
// the inputs' spans once, dispatches a 2-D grid in chunks that respect the
// device's limits, and reads the result back once. Elementwise kernels past
// the storage binding limit run in output chunks, each binding only the
// input windows it reads; a reduction past it is halved along the dim that
// spans the most memory, as a split tensor reduces in package sbp.
package shaders
