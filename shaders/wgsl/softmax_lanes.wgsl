// softmax_lanes.wgsl: softmax along one dim, a workgroup per line: the
// GPU's softmax (TuneGPU). Must agree with softmax.wgsl, which gives a
// line to one invocation (a CPU adapter's), and with tensor.CPU.Softmax:
//   m = max_t a[line + t·s_a];  y_t = exp(x_t − m) / Σ_u exp(x_u − m)
// The WG lanes of a workgroup take the line's elements t = lane,
// lane + WG, …, so where the axis is the innermost memory dim
// neighbouring lanes read neighbouring addresses (a warp's loads
// coalesce), and a line of n elements keeps WG invocations busy instead
// of one. The line's max, whether it holds a NaN, and its sum of
// exponentials are each combined in workgroup memory, a tree of log2 WG
// steps. Workgroups take lines in a grid-stride loop; every lane of a
// workgroup takes the same lines, so the barriers are in uniform control
// flow. NaN and ±Inf lines are all NaN, and exponents below −104 are 0,
// as softmax.wgsl says why.

var<workgroup> tree: array<f32, WG>;

// combine_lanes combines one value per lane, their max (take_max) or
// their sum; every lane gets the result.
fn combine_lanes(lid: u32, v: f32, take_max: bool) -> f32 {
  tree[lid] = v;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h /= 2u) {
    if (lid < h) {
      let a = tree[lid];
      let b = tree[lid + h];
      tree[lid] = select(a + b, max(a, b), take_max);
    }
    workgroupBarrier();
  }
  let r = tree[0];
  workgroupBarrier(); // the next combine reuses tree
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n = p.aux[0].x;
  let sa = p.stride_b[0].x;
  let so = p.stride_b[0].y;
  let groups = nwg.x * nwg.y;
  for (var j = wid.y * nwg.x + wid.x; j < p.count; j += groups) {
    let c = coords_out(j);
    let ia = offset_out(c, i32(p.base_a), p.stride_a);
    let io = offset_out(c, 0, p.stride_o);
    var m = -inf();
    var bad = 0.0; // 1 where the lane saw a NaN: their max says whether any did
    for (var t = lid; t < n; t += WG) {
      let v = load_a(ia + i32(t) * sa);
      bad = select(bad, 1.0, is_nan(v));
      m = max(m, v);
    }
    m = combine_lanes(lid, m, true);
    let nan_line = combine_lanes(lid, bad, true) != 0.0 || is_inf(m);
    var s = 0.0;
    for (var t = lid; t < n; t += WG) {
      let d = load_a(ia + i32(t) * sa) - m;
      s += select(exp(d), 0.0, d < -104.0);
    }
    s = combine_lanes(lid, s, false);
    for (var t = lid; t < n; t += WG) {
      let d = load_a(ia + i32(t) * sa) - m;
      let e = select(exp(d), 0.0, d < -104.0);
      out[u32(io + i32(t) * so)] = select(e / s, nan(), nan_line);
    }
  }
}
