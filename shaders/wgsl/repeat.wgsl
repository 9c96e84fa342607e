// repeat.wgsl: the direct repeat kernel. Must agree with tensor.CPU.Repeat
// (tensor.repeatStrided):
//   out[i] = a[base_a + Σ_d (i_d mod src_d) · stride_a[d]]
// where out dim d is src_d · times_d; aux holds src_d. The loop over items
// is gather.wgsl's; the source coordinates q = c mod src step beside the
// output ones (advance_repeat, in shaders/radix.go). Fanned (FAN > 1,
// along one or two repeated dims) each load is stored to FAN·FAN2 of its
// copies (store_fan, generated in shaders/program.go).

// run repeats into the lane's items (main_tiled.wgsl).
fn run(first: u32, n: u32, c0: Coords, s: Coords) {
  var k = first;
  var left = n;
  var c = c0;
  let shape = p.shape; // hoisted: the loop reads registers, not the uniform
  let stride_a = p.stride_a;
  let aux = p.aux;
  let stride_o = p.stride_o;
  var q = source_coords(c);
  let sq = source_coords(s);
  var oa = offset_out(q, i32(p.base_a), stride_a);
  var o = fan_base(offset_out(c, 0, stride_o), q);
  loop {
    let v = load_a(oa);
    if (FAN == 1u) {
      out[p.base_o + k] = v;
    } else {
      store_fan(o, c, q, v);
    }
    left -= 1u;
    if (left == 0u) { break; }
    k += GROUP;
    if (ROW_RUNS) { // the inner dim is not repeated: q steps with c
      oa += row_step(stride_a);
      o += row_step(stride_o);
    } else {
      advance_repeat(&c, &q, s, sq, shape, aux);
      oa = offset_out(q, i32(p.base_a), stride_a);
      o = fan_base(offset_out(c, 0, stride_o), q);
    }
  }
}
