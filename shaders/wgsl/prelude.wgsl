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
  reduced: u32, // reduce: elements folded into each output
  per: u32,     // elementwise: items per invocation (see first_item)
  pad2: u32,
  shape: array<vec4<u32>, 2>,     // output dims
  aux: array<vec4<u32>, 2>,       // repeat: source dims; reduce: reduced dims
  stride_a: array<vec4<i32>, 2>,  // element strides of a over the output dims
  stride_b: array<vec4<i32>, 2>,  // of b (binary) or of the reduced dims of a (reduce)
  stride_o: array<vec4<i32>, 2>,  // output element strides (reduce: over the kept dims)
  fan: vec4<i32>,       // fanned kernels: FAN_DIM's output size, source size, output stride
  fan2: vec4<i32>,      // the same of FAN2_DIM
  fan_load: vec4<i32>,  // a's and b's element stride along FAN_DIM, then along FAN2_DIM
  split: vec4<u32>,     // reduce: chunks per output and reduced elements per chunk
  // The magic pairs (m, l) of div_by for each dim of shape and of aux, two
  // dims to a vec4 (dim d: [d / 2], components 2·(d mod 2) and the next),
  // and of count.
  shape_div: array<vec4<u32>, 4>,
  aux_div: array<vec4<u32>, 4>,
  count_div: vec4<u32>,
}

@group(0) @binding(0) var<uniform> p: Params;


// item_index is the linear invocation index in a 2-D grid (the kernels
// that take one item per invocation, main_item.wgsl).
fn item_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
  return (wid.y * nwg.x + wid.x) * WG + lid;
}

// Tiles (the elementwise kernels): workgroup w takes the WG·per items
// from w·WG·per on. Its lanes go in groups of GROUP: group g takes the
// GROUP·per items from tile + g·GROUP·per, lane l of the group the items
// l, l + GROUP, … of them. At each step a group touches GROUP neighbouring
// items, which coalesce on a GPU (GROUP·16 bytes: whole cache lines), and
// from step to step it walks forward through memory, which is what a CPU
// running the group as one SIMD vector (lavapipe, SwiftShader: 8 lanes)
// streams fastest; lanes that each jump far from step to step leave its
// prefetchers idle and run several times slower.
const GROUP: u32 = 8u;

// first_item is the lane's first item, from the workgroup's index in a
// 2-D grid (grids wider than 65535 workgroups wrap into rows of
// num_workgroups.x).
fn first_item(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
  let tile = (wid.y * nwg.x + wid.x) * WG * p.per;
  return tile + (lid / GROUP) * GROUP * p.per + lid % GROUP;
}

// items_from is how many items the lane whose first item is k takes:
// per, or fewer at the end of the dispatch (k < count).
fn items_from(k: u32) -> u32 {
  return min(p.per, (p.count - k - 1u) / GROUP + 1u);
}

// With ROW_RUNS every lane's items lie in one row of the inner dim (its
// length and the dispatch's start are multiples of GROUP·per items): from
// step to step only the inner coordinate moves, by GROUP·VEC, and each
// offset by that times its inner stride, with no coordinates to step.
const LAST: u32 = max(RANK, 1u) - 1u;
fn row_step(stride: array<vec4<i32>, 2>) -> i32 {
  return i32(GROUP * VEC) * stride[LAST / 4u][LAST % 4u];
}

// mul_hi is the high word of the 64-bit product a·b, from 16-bit halves
// (WGSL has no widening multiply).
fn mul_hi(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

// div_by is ⌊n / d⌋ for any u32 n, given d's magic pair (m, l), which the
// host computes (shaders/divide.go, Granlund and Montgomery):
//   t = ⌊m·n / 2³²⌋,  n / d = (t + ((n − t) >> min(l, 1))) >> (max(l, 1) − 1)
// A few multiplies and shifts on every lane at once, where a u32 division
// is a long sequence on a GPU and a scalar divide per lane on a CPU.
fn div_by(n: u32, m: u32, l: u32) -> u32 {
  let t = mul_hi(n, m);
  return (t + ((n - t) >> min(l, 1u))) >> (max(l, 1u) - 1u);
}

// Coords are the coordinates of one element over up to 8 dims. The
// kernels never divide: they take an item's coordinates once (coords_out,
// with div_by), then step them GROUP items at a time in mixed radix
// (advance_out), a few adds and compares per dim. shaders/radix.go
// generates these helpers unrolled for the pipeline's rank.
alias Coords = array<u32, 8>;

// Fanning (FAN > 1): an item stands for a block of FAN × FAN2 outputs
// along FAN_DIM and FAN2_DIM (FAN2 = 1: one dim) that read the same
// element of a fixed operand (stride 0 there; for repeat, the same source
// element), so it loads that once and stores the block. Along each fan dim
// the item's coordinate c_f counts groups: the outputs are at
// (c_f − q_f)·F + j·src + q_f for j < F, where src is the dim's source size
// (repeat; 1 otherwise) and q_f = c_f mod src. Without TAIL every fan
// divides its dim and every copy exists.

// fan_ok reports whether copy (j, j2) of the item at c (source coords q)
// exists.
fn fan_ok(c: Coords, q: Coords, j: u32, j2: u32) -> bool {
  if (!TAIL) { return true; }
  return (c[FAN_DIM] - q[FAN_DIM]) * FAN + j * u32(p.fan.y) < u32(p.fan.x) &&
         (FAN2 == 1u || (c[FAN2_DIM] - q[FAN2_DIM]) * FAN2 + j2 * u32(p.fan2.y) < u32(p.fan2.x));
}

// fan_base is the element offset of an item's first copy, where o is
// its offset through stride_o (whose fan dims' entries are F·ostride); copy
// (j, j2) lies j·src·ostride + j2·src2·ostride2 beyond it. The generated
// store_fan* functions write each copy out with these steps. It is o
// unless the fan dims are repeated (q ≠ 0), and moves with o along a row.
fn fan_base(o: i32, q: Coords) -> i32 {
  return o - i32(q[FAN_DIM] * (FAN - 1u)) * p.fan.z - i32(q[FAN2_DIM] * (FAN2 - 1u)) * p.fan2.z;
}
