// binary.wgsl: broadcast binary op. Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// Integer x / 0 is x (WGSL's rule, which the CPU follows).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  var rem = p.start + k * VEC;
  var off_a = i32(p.base_a);
  var off_b = i32(p.base_b);
  for (var d = RANK; d > 0u; d--) {
    let n = dim_of(p.shape, d - 1u);
    let c = i32(rem % n);
    off_a += c * stride_of(p.stride_a, d - 1u);
    off_b += c * stride_of(p.stride_b, d - 1u);
    rem /= n;
  }
  out[p.base_o + k] = apply(load_a(off_a), load_b(off_b));
}
