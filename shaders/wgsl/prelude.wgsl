// prelude.wgsl: shared by every stridelab kernel. shaders/program.go puts
// the generated constants (Elem, Item, RANK, WG, loads, op) in front.
//
// Params hold one dispatch's geometry: up to 8 coalesced dims, packed four
// to a vec4 because uniform arrays have a 16-byte element stride.
struct Params {
  count: u32,   // work items in this dispatch (elements, or vec4s when VEC is 4)
  start: u32,   // output element index of the dispatch's first item
  base_a: u32,  // offset of operand a's first element in its binding
  base_b: u32,
  base_o: u32,  // offset of the dispatch's first output in the out binding
  pad0: u32, pad1: u32, pad2: u32,
  shape: array<vec4<u32>, 2>,     // output dims
  aux: array<vec4<u32>, 2>,       // repeat: source dims; reduce: reduced dims
  stride_a: array<vec4<i32>, 2>,  // element strides of a over the output dims
  stride_b: array<vec4<i32>, 2>,  // of b (binary) or of the reduced dims of a (reduce)
  stride_o: array<vec4<i32>, 2>,  // reduce: output strides over the kept dims
}

@group(0) @binding(0) var<uniform> p: Params;

fn dim_of(v: array<vec4<u32>, 2>, d: u32) -> u32 { return v[d / 4u][d % 4u]; }
fn stride_of(v: array<vec4<i32>, 2>, d: u32) -> i32 { return v[d / 4u][d % 4u]; }

// item_index rebuilds the linear invocation index of a 2-D dispatch: grids
// wider than 65535 workgroups wrap into rows of num_workgroups.x.
fn item_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
  return (wid.y * nwg.x + wid.x) * WG + lid;
}

// strided_offset is base + Σ_d i_d · stride[d] for the output element at
// linear index i, its coordinates i_d taken over p.shape (row-major).
fn strided_offset(i: u32, base: u32, stride: array<vec4<i32>, 2>) -> i32 {
  var rem = i;
  var off = i32(base);
  for (var d = RANK; d > 0u; d--) {
    let n = dim_of(p.shape, d - 1u);
    off += i32(rem % n) * stride_of(stride, d - 1u);
    rem /= n;
  }
  return off;
}
