// binary.wgsl: broadcast binary op. Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// Integer x / 0 is x (WGSL's rule, which the CPU follows). The loop over
// items is gather.wgsl's.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  var k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  let step = grid_step(nwg);
  let shape = p.shape; // hoisted: the loop reads registers, not the uniform
  let stride_a = p.stride_a;
  let stride_b = p.stride_b;
  let s = coords_out(step * VEC, shape);
  var c = coords_out(p.start + k * VEC, shape);
  loop {
    out[p.base_o + k] = apply(load_a(offset_out(c, i32(p.base_a), stride_a)),
                              load_b(offset_out(c, i32(p.base_b), stride_b)));
    if (!next_item(&k, step)) { break; }
    advance_out(&c, s, shape);
  }
}
