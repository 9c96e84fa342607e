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

var<workgroup> tree_f: array<f32, WG>;
var<workgroup> tree_u: array<u32, WG>;

// tree_max, tree_sum and tree_any combine one value per lane; every lane
// gets the result.
fn tree_max(lid: u32, v: f32) -> f32 {
  tree_f[lid] = v;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h /= 2u) {
    if (lid < h) { tree_f[lid] = max(tree_f[lid], tree_f[lid + h]); }
    workgroupBarrier();
  }
  let r = tree_f[0];
  workgroupBarrier(); // the next tree reuses tree_f
  return r;
}

fn tree_sum(lid: u32, v: f32) -> f32 {
  tree_f[lid] = v;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h /= 2u) {
    if (lid < h) { tree_f[lid] = tree_f[lid] + tree_f[lid + h]; }
    workgroupBarrier();
  }
  let r = tree_f[0];
  workgroupBarrier();
  return r;
}

fn tree_any(lid: u32, v: u32) -> u32 {
  tree_u[lid] = v;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h /= 2u) {
    if (lid < h) { tree_u[lid] = tree_u[lid] | tree_u[lid + h]; }
    workgroupBarrier();
  }
  let r = tree_u[0];
  workgroupBarrier();
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
    var bad = 0u;
    for (var t = lid; t < n; t += WG) {
      let v = load_a(ia + i32(t) * sa);
      bad = bad | select(0u, 1u, is_nan(v));
      m = max(m, v);
    }
    m = tree_max(lid, m);
    let nan_line = tree_any(lid, bad) != 0u || is_inf(m);
    var s = 0.0;
    for (var t = lid; t < n; t += WG) {
      let d = load_a(ia + i32(t) * sa) - m;
      s += select(exp(d), 0.0, d < -104.0);
    }
    s = tree_sum(lid, s);
    for (var t = lid; t < n; t += WG) {
      let d = load_a(ia + i32(t) * sa) - m;
      let e = select(exp(d), 0.0, d < -104.0);
      out[u32(io + i32(t) * so)] = select(e / s, nan(), nan_line);
    }
  }
}
