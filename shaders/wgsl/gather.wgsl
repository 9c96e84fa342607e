// gather.wgsl: materialize a strided view (expand, permute and slice
// copies are all this kernel), applying a unary op to every element it
// reads (unary: generated in shaders/program.go, unaryOpWGSL; the
// identity for a copy). Must agree with tensor.CPU.Materialize
// (tensor.copyStrided) and tensor.CPU.Unary (tensor.unaryFloat):
//   out[i] = unary(a[base_a + Σ_d i_d · stride_a[d]])   (stride 0 on broadcast dims)
// With VEC = 4 each item is four consecutive outputs of one inner row;
// load_a reads them as a vec4 or splats a broadcast element. Each
// invocation takes items k, k + GROUP, … of its tile (first_item in the
// prelude, through main_tiled.wgsl's main), stepping their coordinates
// without division (with ROW_RUNS, only their offsets). Fanned (FAN > 1,
// along one or two broadcast dims of a) each load is stored FAN·FAN2
// times (store_fan, generated in shaders/program.go).

// run gathers the lane's items (main_tiled.wgsl).
fn run(first: u32, n: u32, c0: Coords, s: Coords) {
  var k = first;
  var left = n;
  var c = c0;
  let shape = p.shape; // hoisted: the loop reads registers, not the uniform
  let stride_a = p.stride_a;
  let stride_o = p.stride_o;
  var oa = offset_out(c, i32(p.base_a), stride_a);
  var o = offset_out(c, 0, stride_o);
  loop {
    let v = unary(load_a(oa));
    if (FAN == 1u) {
      out[p.base_o + k] = v;
    } else {
      let q = Coords(); // no source coords: every q_f is 0
      store_fan(o, c, q, v);
    }
    left -= 1u;
    if (left == 0u) { break; }
    k += GROUP;
    if (ROW_RUNS) {
      oa += row_step(stride_a);
      o += row_step(stride_o);
    } else {
      advance_out(&c, s, shape);
      oa = offset_out(c, i32(p.base_a), stride_a);
      o = offset_out(c, 0, stride_o);
    }
  }
}
