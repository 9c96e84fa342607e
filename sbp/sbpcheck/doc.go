// Package sbpcheck is the property suite of the SBP core: random ops
// (expand, repeat, binary, unary, reduce, mean, softmax, matmul, transpose,
// permute, reshape, scale, repeat_grad; and every signature of the
// backward's gradient ops, GradSignatureCases),
// shapes, SBPs and placements (1 to 8 devices, 2-D meshes, uneven splits
// and empty shards included), each run sharded on simulated devices,
// boxed to a random SBP (what the boxing moved between the devices
// checked against its plan's bytes, Moves) and gathered, and compared
// with the op's single-device result; and every signature of one op run as it is
// (SignatureCases). The sbp tests run it on the CPU backend and the
// shaders tests on WebGPU, so both backends are held to one list.
package sbpcheck
