// main_item.wgsl: the entry point of the kernels that take one item per
// invocation (copy, softmax, binary_walk, gather_rows, scatter_add). It
// finds the invocation's item (item_index), drops one past the
// dispatch's end, and hands the item to the kernel's item.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = item_index(wid, nwg, lid);
  if (i >= p.count) { return; }
  item(i);
}
