// repeat.wgsl: the direct repeat kernel. Must agree with tensor.CPU.Repeat
// (tensor.repeatStrided):
//   out[i] = a[base_a + Σ_d (i_d mod src_d) · stride_a[d]]
// where out dim d is src_d · times_d. aux holds src_d.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  var rem = p.start + k * VEC;
  var off = i32(p.base_a);
  for (var d = RANK; d > 0u; d--) {
    let n = dim_of(p.shape, d - 1u);
    off += i32((rem % n) % dim_of(p.aux, d - 1u)) * stride_of(p.stride_a, d - 1u);
    rem /= n;
  }
  out[p.base_o + k] = load_a(off);
}
