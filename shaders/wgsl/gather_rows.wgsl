// gather_rows.wgsl: rows of a table looked up by int32 ids, an
// embedding. Must agree with tensor.CPU.Gather (tensor.gatherRowsInto):
//   out[i, c] = a[base_a + (ids[i] − lo − w0)·stride_b[0].x + Σ_d c_d·stride_a[d]]
//               where w0 ≤ ids[i] − lo < w1,
//   out[i, c] = 0 where ids[i] − lo lies outside 0 … rows − 1 (written by
//               the dispatch whose window starts at row 0)
// One invocation per output element j = start + k (main_item.wgsl): its
// coordinates over shape = [ids, the table's other dims coalesced] give
// the id's position i = c[0] and, through stride_a (0 on dim 0), the
// element's offset within its row, so neighbouring invocations read
// neighbouring elements of one row. a binds rows w0 … w1 − 1 of the
// table (all of them, at any strides, unless the table is too large for
// one binding: then it is contiguous and each dispatch binds a window of
// its rows). The Params: aux[0] = (lo, rows, w0, w1); aux[1].x is the
// first id the ids binding holds.

// item writes output element start + k.
fn item(k: u32) {
  let c = coords_out(p.start + k);
  let id = ids[c[0] - p.aux[1].x];
  // id − lo, wrapping: an id below lo becomes a row past any table
  // (lo + rows ≤ 2³¹ − 1, so no wrapped value lands below rows).
  let r = bitcast<u32>(id) - p.aux[0].x;
  if (r >= p.aux[0].z && r < p.aux[0].w) {
    let row = i32(p.base_a) + i32(r - p.aux[0].z) * p.stride_b[0].x;
    out[p.base_o + k] = load_a(offset_out(c, row, p.stride_a));
  } else if (p.aux[0].z == 0u && r >= p.aux[0].y) {
    out[p.base_o + k] = Item(0);
  }
}
