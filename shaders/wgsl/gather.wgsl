// gather.wgsl: materialize a strided view (expand, permute and slice
// copies are all this kernel). Must agree with tensor.CPU.Materialize
// (tensor.copyStrided):
//   out[i] = a[base_a + Σ_d i_d · stride_a[d]]   (stride 0 on broadcast dims)
// With VEC = 4 each invocation writes four consecutive outputs of one
// inner row; load_a reads them as a vec4 or splats a broadcast element.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  out[p.base_o + k] = load_a(strided_offset(p.start + k * VEC, p.base_a, p.stride_a));
}
