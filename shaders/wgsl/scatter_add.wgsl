// scatter_add.wgsl: rows of float32 values summed by int32 ids into a
// table's rows, gather's backward. Must agree with
// tensor.CPU.ScatterAdd:
//   out[r, c] = Σ over i with ids[i] = lo + r of src[i, c]
// One invocation per output element j = start + k (main_item.wgsl),
// coordinates c over shape = [rows, src's dims after ids' coalesced],
// which sums its row's values in the order of i, in f32: the host lists
// each row's positions (tensor.RowsOfIds) as compressed rows,
//   firsts[r − r0] … firsts[r − r0 + 1] − 1   index into   rows_at,
// rows_at holding the offset in a of each position's row of values, and
// the element's offset within the row is Σ_d c_d·stride_a[d] (stride_a
// 0 on dim 0). A row no id names sums nothing: 0. When src is too large
// for one binding the positions come in windows, one dispatch each in
// order of i; every dispatch after the first (aux[0].y = 1) adds to what
// out holds, so the order of the sum is the same. The Params: aux[0] =
// (r0, accumulate), r0 the first row the dispatch's firsts describe.

// item writes output element start + k.
fn item(k: u32) {
  let c = coords_out(p.start + k);
  let r = c[0] - p.aux[0].x;
  let inner = offset_out(c, 0, p.stride_a);
  var acc = 0.0;
  if (p.aux[0].y != 0u) {
    acc = out[p.base_o + k];
  }
  let end = firsts[r + 1u];
  for (var t = firsts[r]; t < end; t++) {
    acc += load_a(i32(rows_at[t]) + inner);
  }
  out[p.base_o + k] = acc;
}
