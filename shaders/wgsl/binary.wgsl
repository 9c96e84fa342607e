// binary.wgsl: broadcast binary op. Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// Integer x / 0 is x (WGSL's rule, which the CPU follows).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  let i = p.start + k * VEC;
  out[p.base_o + k] = apply(load_a(strided_offset(i, p.base_a, p.stride_a)),
                            load_b(strided_offset(i, p.base_b, p.stride_b)));
}
