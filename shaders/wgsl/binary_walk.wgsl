// binary_walk.wgsl: broadcast binary op, walking (shaders/walk.go,
// TuneCPUOpBound). Must agree with tensor.CPU.Binary
// (tensor.binaryStrided):
//   out[i] = op(a[base_a + Σ_d i_d·stride_a[d]], b[base_b + Σ_d i_d·stride_b[d]])
// as binary.wgsl does. Along WALK_DIM (W) the held operand is fixed, along
// FAN_DIM (F) the walker is. Invocation i takes the item at coordinates
// coords_walk(i·VEC) of the walk space (aux: the item space with W cut
// into runs of p.per), W's coordinate scaled by p.per: it loads the held
// operand's FAN values along F once (walk_held), then steps down W for
// up to p.per steps, loading the walker once and storing the FAN outputs
// along F that share it (store_walk, generated in shaders/program.go),
// indexing the walker's array and out directly.
// Neighbouring invocations take neighbouring items of the inner dim.

// item walks item i (main_item.wgsl).
fn item(i: u32) {
  let shape = p.shape;
  let stride_a = p.stride_a;
  let stride_b = p.stride_b;
  let stride_o = p.stride_o;
  var c = coords_walk(i * VEC);
  c[WALK_DIM] *= p.per;
  let n = min(p.per, shape[WALK_DIM / 4u][WALK_DIM % 4u] - c[WALK_DIM]);
  let oa = offset_out(c, i32(p.base_a), stride_a);
  let ob = offset_out(c, i32(p.base_b), stride_b);
  let h = walk_held(oa, ob);
  // The walker's index and step, out's item index and steps.
  var iw = oa / WALK_UNIT;
  var step_w = stride_a[WALK_DIM / 4u][WALK_DIM % 4u] / WALK_UNIT;
  if (HOLD == 0u) {
    iw = ob / WALK_UNIT;
    step_w = stride_b[WALK_DIM / 4u][WALK_DIM % 4u] / WALK_UNIT;
  }
  var io = u32(offset_out(c, 0, stride_o)) / VEC;
  let step_o = u32(stride_o[WALK_DIM / 4u][WALK_DIM % 4u]) / VEC;
  let s1 = u32(p.fan.y * p.fan.z) / VEC;
  for (var t = 0u; t < n; t++) {
    store_walk(io, c, iw, h, s1);
    iw += step_w;
    io += step_o;
  }
}
