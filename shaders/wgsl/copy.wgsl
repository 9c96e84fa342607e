// copy.wgsl: the plain copy the benchmark measures every kernel against:
// a vec4 storage-to-storage copy of the same bytes, no index arithmetic.
// Must agree with Go's copy(out, a).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = item_index(wid, nwg, lid);
  if (k >= p.count) { return; }
  out[p.base_o + k] = load_a(i32(k * 4u));
}
