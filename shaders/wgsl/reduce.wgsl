// reduce.wgsl: broadcast-reduce. Must agree with tensor.CPU.Reduce
// (tensor.reduceStrided):
//   out[j] = op over the reduced coordinates r of a[base_a + kept(j) + red(r)]
// The host has put dims in memory order and merged runs of kept and of
// reduced dims (the MXNet/TVM pattern): RANK kept dims (shape, stride_a,
// stride_o) and RED reduced dims (aux, stride_b). LANES invocations share
// one output: each folds every LANES-th reduced element, then the
// workgroup combines the lanes in a shared-memory tree. Float sums
// accumulate in f32 (WGSL has no f64), so they match the CPU's float64
// accumulation only to rounding.

var<workgroup> scratch: array<Elem, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let lane = lid % LANES;
  let j = (wid.y * nwg.x + wid.x) * (WG / LANES) + lid / LANES;
  var acc = bitcast<Elem>(IDENTITY_BITS); // infinities have no WGSL literal
  var out_off = 0;
  if (j < p.count) {
    var rem = p.start + j;
    var off = i32(p.base_a);
    for (var d = RANK; d > 0u; d--) {
      let n = dim_of(p.shape, d - 1u);
      let c = i32(rem % n);
      off += c * stride_of(p.stride_a, d - 1u);
      out_off += c * stride_of(p.stride_o, d - 1u);
      rem /= n;
    }
    var total = 1u;
    for (var d = 0u; d < RED; d++) { total *= dim_of(p.aux, d); }
    for (var r = lane; r < total; r += LANES) {
      var rr = r;
      var roff = off;
      for (var d = RED; d > 0u; d--) {
        let n = dim_of(p.aux, d - 1u);
        roff += i32(rr % n) * stride_of(p.stride_b, d - 1u);
        rr /= n;
      }
      acc = combine(acc, a[u32(roff)]);
    }
  }
  scratch[lid] = acc;
  workgroupBarrier();
  for (var s = LANES / 2u; s > 0u; s /= 2u) {
    if (lane < s) { scratch[lid] = combine(scratch[lid], scratch[lid + s]); }
    workgroupBarrier();
  }
  if (lane == 0u && j < p.count) {
    out[u32(out_off)] = scratch[lid];
  }
}
