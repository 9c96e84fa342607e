// binary.wgsl: broadcast binary op. Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// Integer x / 0 is x (WGSL's rule, which the CPU follows). The loop over
// items is gather.wgsl's. Fanned (FAN > 1, along a dim where a or b has
// stride 0), the fixed operand is loaded once for FAN outputs.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  var k = first_item(wid, nwg, lid);
  if (k >= p.count) { return; }
  var left = items_from(k);
  let shape = p.shape; // hoisted: the loop reads registers, not the uniform
  let stride_a = p.stride_a;
  let stride_b = p.stride_b;
  let stride_o = p.stride_o;
  let s = coords_out(GROUP * VEC, shape);
  var c = coords_out(p.start + k * VEC, shape);
  loop {
    let oa = offset_out(c, i32(p.base_a), stride_a);
    let ob = offset_out(c, i32(p.base_b), stride_b);
    var x = load_a(oa);
    var y = load_b(ob);
    if (FAN == 1u) {
      out[p.base_o + k] = apply(x, y);
    } else {
      let o = offset_out(c, 0, stride_o);
      for (var j = 0u; j < FAN; j++) {
        if (fan_ok(c[FAN_DIM], 0u, j)) {
          if (A_VARIES && j > 0u) { x = load_a(oa + i32(j) * p.fan_load.x); }
          if (B_VARIES && j > 0u) { y = load_b(ob + i32(j) * p.fan_load.y); }
          out[u32(fan_out(o, 0u, j)) / VEC] = apply(x, y);
        }
      }
    }
    left -= 1u;
    if (left == 0u) { break; }
    k += GROUP;
    advance_out(&c, s, shape);
  }
}
