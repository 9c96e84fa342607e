// softmax.wgsl: softmax along one dim of any strided view. Must agree
// with tensor.CPU.Softmax (tensor.softmaxLine):
//   m = max_t a[line + t·s_a];  y_t = exp(x_t − m) / Σ_u exp(x_u − m)
// One invocation per line (item j: the line's coordinates over the
// coalesced other dims, shape / stride_a / stride_o), three passes over
// its p.aux[0].x elements, s_a = p.stride_b[0].x apart in a and
// s_o = p.stride_b[0].y apart in out: the max, the sum of exponentials
// (f32), the quotients. As torch's: a line holding a NaN, or whose max is
// ±Inf (all −Inf; a +Inf, where +Inf − +Inf is NaN), is all NaN, told by
// bits (lavapipe folds x != x to false; WGSL's max of a NaN is
// indeterminate); exp of a difference below −104 is 0 (e^−104 is below
// f32's least subnormal; exp(−Inf) is indeterminate in WGSL). inf(),
// nan(), is_nan and is_inf are generated (specialWGSL, in
// shaders/program.go).


// item normalises line j (main_item.wgsl).
fn item(j: u32) {
  let c = coords_out(j);
  let ia = offset_out(c, i32(p.base_a), p.stride_a);
  let io = offset_out(c, 0, p.stride_o);
  let n = p.aux[0].x;
  let sa = p.stride_b[0].x;
  let so = p.stride_b[0].y;
  var m = -inf();
  var bad = false;
  for (var t = 0u; t < n; t++) {
    let v = load_a(ia + i32(t) * sa);
    bad = bad || is_nan(v);
    m = max(m, v);
  }
  bad = bad || is_inf(m);
  var s = 0.0;
  for (var t = 0u; t < n; t++) {
    let d = load_a(ia + i32(t) * sa) - m;
    s += select(exp(d), 0.0, d < -104.0);
  }
  for (var t = 0u; t < n; t++) {
    let d = load_a(ia + i32(t) * sa) - m;
    let e = select(exp(d), 0.0, d < -104.0);
    out[u32(io + i32(t) * so)] = select(e / s, nan(), bad);
  }
}
