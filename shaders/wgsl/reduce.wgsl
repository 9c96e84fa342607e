// reduce.wgsl: broadcast-reduce. Must agree with tensor.CPU.Reduce
// (tensor.reduceStrided):
//   out[j] = op over the reduced coordinates r of a[base_a + kept(j) + red(r)]
// The host has put dims in memory order and merged runs of kept and of
// reduced dims (the MXNet/TVM pattern, tensor.ReduceGeometry): RANK kept
// dims (shape, stride_a, stride_o) and RED reduced dims (aux, stride_b),
// p.reduced elements per output. LANES invocations share an output: lane
// l folds reduced elements l, l + LANES, …, then the workgroup combines the
// lanes in a shared-memory tree. With LANES = 1 (chosen when the innermost
// memory dim is kept, and always on a CPU adapter) each invocation folds
// its outputs alone and no barrier is needed. Split (p.split.x = K > 1
// chunks: on a CPU adapter to keep its threads busy, on a GPU to reach
// its fill of invocations), an output's reduced elements are cut into K
// chunks of p.split.y; item k·count + i folds chunk k of output item i
// (its LANES lanes side by side in it) and writes it at out[k·count + i],
// and a second dispatch reduces those K partials (shaders/reduce.go). Items go round in a grid-stride loop, their output
// coordinates stepped without division; TILED (a CPU adapter, LANES = 1),
// they are taken in the elementwise kernels' tiles (first_item in the
// prelude), p.per to an invocation.
// Vectorized: with VEC = 4 an item is four neighbouring outputs (the
// innermost memory dim is kept and contiguous) folded as a vec4; with
// RVEC = 4 each load takes four neighbouring reduced elements (the
// innermost dim is reduced and contiguous). fold_load is generated for
// the mode. Float sums accumulate in f32 (WGSL has no f64), so they match
// the CPU's float64 accumulation only to rounding.

// The identity's bits go through a private variable: infinities have no
// WGSL literal, and a browser's compiler rejects a constant bitcast to one.
var<private> identity_bits: u32 = IDENTITY_BITS;
fn identity() -> Item { return Item(bitcast<Elem>(identity_bits)); }

// fold combines the reduced elements first, first + LANES·RVEC, … below
// end (RVEC at a time) of the item whose first input is at off; r0 and rs
// are the reduced coordinates of first and of LANES·RVEC.
// With one lane per output it goes row by row of the innermost reduced
// dim instead, stepping an index of a within a row and the coordinates
// only from row to row (SwiftShader, sum [4,256,1024] to [1,256,1]: 0.72
// of the copy kernel stepping coordinates per load, 0.80 per row, same run).
fn fold(off: i32, first: u32, end: u32, r0: Coords, rs: Coords, aux: array<vec4<u32>, 2>, stride: array<vec4<i32>, 2>) -> Item {
  var acc = identity();
  var r = r0;
  if (LANES == 1u) {
    const IN = max(RED, 1u) - 1u; // the innermost reduced dim (RED 0: none, and no loads)
    let row = select(aux[IN / 4u][IN % 4u], 1u, RED == 0u);
    let step = stride[IN / 4u][IN % 4u] * i32(RVEC) / i32(LOAD_UNIT); // index step per load
    var next: Coords; // one row on: 1 in the next dim out
    next[max(RED, 2u) - 2u] = 1u;
    var i = first;
    loop {
      if (i >= end) { break; }
      let loads = (min(end - i, row - r[IN]) + RVEC - 1u) / RVEC;
      var at = i32(u32(offset_red(r, off, stride)) / LOAD_UNIT);
      for (var t = 0u; t < loads; t++) {
        acc = combine(acc, fold_at(u32(at)));
        at += step;
      }
      i += loads * RVEC;
      r[IN] = 0u;
      advance_red(&r, next, aux);
    }
    return acc;
  }
  for (var i = first; i < end; i += LANES * RVEC) {
    acc = combine(acc, fold_load(offset_red(r, off, stride)));
    advance_red(&r, rs, aux);
  }
  return acc;
}

// fold_fixed (generated when FOLD_N > 0: LANES is 1, an output folds
// FOLD_N ≤ 8 elements, unsplit) is fold written out load by load: a CPU
// adapter runs every iteration of a loop under a lane mask.

// fold_item folds output item j (its output's coordinates c) for the
// invocation's lane: the whole of its output, or with SPLIT chunk
// j / count of it, the lanes side by side in the chunk.
fn fold_item(j: u32, c: Coords, lane: u32, r0: Coords, rs: Coords, aux: array<vec4<u32>, 2>,
             stride_a: array<vec4<i32>, 2>, stride_b: array<vec4<i32>, 2>) -> Item {
  var first = lane * RVEC;
  var end = p.reduced;
  var r = r0;
  if (SPLIT) {
    let c0 = div_by(j, p.count_div.x, p.count_div.y) * p.split.y;
    first = c0 + lane * RVEC;
    end = min(end, c0 + p.split.y);
    r = coords_red(first);
  }
  if (FOLD_N > 0u) {
    return fold_fixed(offset_out(c, i32(p.base_a), stride_a), r, rs, aux, stride_b);
  }
  return fold(offset_out(c, i32(p.base_a), stride_a), first, end, r, rs, aux, stride_b);
}

// store_item writes item j's result: at j (a chunk's partial) or at its
// output's offset.
fn store_item(j: u32, c: Coords, stride_o: array<vec4<i32>, 2>, v: Item) {
  if (SPLIT) { out[j] = v; } else { out[u32(offset_out(c, 0, stride_o)) / VEC] = v; }
}

// With subgroups (the adapter has them, a GPU's tuning), the lanes'
// tree takes its last steps by subgroup shuffles instead of workgroup
// memory and barriers (lanesWGSL in shaders/program.go): the same
// combines in the same order, so the same results.

// main has two loops over items. TILED (a CPU adapter, LANES = 1) each
// lane stops on its own. Otherwise every lane of a workgroup goes the same
// number of rounds, counted from uniform values only: the lanes' tree
// (combine_lanes) has barriers, and a browser's WGSL compiler checks that
// no barrier sits under control flow that can differ between lanes,
// statically, whatever the constants (Tint refused the earlier single
// loop, whose count a TILED branch assigned from the lane's index).
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32, sg: Subgroup) {
  let lane = lid % LANES;
  let per = WG / LANES;
  let items = p.count * p.split.x; // chunk k of output item i is item k·count + i
  let shape = p.shape; // hoisted: the loops read registers, not the uniform
  let aux = p.aux;
  let stride_a = p.stride_a;
  let stride_b = p.stride_b;
  let stride_o = p.stride_o;
  let r0 = coords_red(lane * RVEC);
  let rs = coords_red(LANES * RVEC);
  if (TILED) {
    var j = first_item(wid, nwg, lid);
    let rounds = select(0u, min(p.per, (items - j - 1u) / GROUP + 1u), j < items);
    let s = coords_out(GROUP * VEC);
    var c = coords_out(p.start + j * VEC); // coords_out wraps: item j's output is j mod count
    for (var round = 0u; round < rounds; round++) {
      store_item(j, c, stride_o, fold_item(j, c, lane, r0, rs, aux, stride_a, stride_b));
      j += GROUP;
      advance_out(&c, s, shape);
    }
    return;
  }
  let span = shuffle_span(sg, lid); // lanes this far apart combine by subgroup shuffles
  var j = (wid.y * nwg.x + wid.x) * per + lid / LANES;
  let step = nwg.x * nwg.y * per;
  let rounds = items / step + select(0u, 1u, items % step != 0u);
  let s = coords_out(step * VEC);
  var c = coords_out(p.start + j * VEC);
  for (var round = 0u; round < rounds; round++) {
    var acc = identity();
    if (j < items) {
      acc = fold_item(j, c, lane, r0, rs, aux, stride_a, stride_b);
    }
    if (LANES == 1u) {
      if (j < items) { store_item(j, c, stride_o, acc); }
    } else {
      let r = combine_lanes(lid, lane, acc, span);
      if (lane == 0u && j < items) { store_item(j, c, stride_o, r); }
    }
    j += step;
    advance_out(&c, s, shape);
  }
}
