// binary.wgsl: broadcast binary op. Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// Integer x / 0 is x (WGSL's rule, which the CPU follows). The loop over
// items is gather.wgsl's. Fanned (FAN > 1, along one or two dims where a
// or b has stride 0), each operand is loaded once per value it takes in
// the FAN × FAN2 block.

// run computes the lane's items (main_tiled.wgsl).
fn run(first: u32, n: u32, c0: Coords, s: Coords) {
  var k = first;
  var left = n;
  var c = c0;
  let shape = p.shape; // hoisted: the loop reads registers, not the uniform
  let stride_a = p.stride_a;
  let stride_b = p.stride_b;
  let stride_o = p.stride_o;
  var oa = offset_out(c, i32(p.base_a), stride_a);
  var ob = offset_out(c, i32(p.base_b), stride_b);
  var o = offset_out(c, 0, stride_o);
  loop {
    if (FAN == 1u) {
      out[p.base_o + k] = apply(load_a(oa), load_b(ob));
    } else {
      store_fan_binary(o, c, oa, ob);
    }
    left -= 1u;
    if (left == 0u) { break; }
    k += GROUP;
    if (ROW_RUNS) {
      oa += row_step(stride_a);
      ob += row_step(stride_b);
      o += row_step(stride_o);
    } else {
      advance_out(&c, s, shape);
      oa = offset_out(c, i32(p.base_a), stride_a);
      ob = offset_out(c, i32(p.base_b), stride_b);
      o = offset_out(c, 0, stride_o);
    }
  }
}
