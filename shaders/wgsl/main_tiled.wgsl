// main_tiled.wgsl: the entry point of the kernels that take their items
// in tiles (gather, repeat, binary). It finds the lane's first item k
// (first_item), drops a lane past the dispatch's end, and hands the
// kernel's run its items: items_from(k) of them, k, k + GROUP, …, the
// first at output coordinates coords_out(start + k·VEC), each the next
// coords_out(GROUP·VEC) on.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let k = first_item(wid, nwg, lid);
  if (k >= p.count) { return; }
  run(k, items_from(k), coords_out(p.start + k * VEC), coords_out(GROUP * VEC));
}
