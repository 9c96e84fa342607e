package shaders

// lanesWGSL returns combine_lanes(lid, lane, acc, span), which combines
// the accumulators of an output's LANES lanes and returns the result to
// lane 0, with what it needs: Subgroup, main's subgroup builtins, and
// shuffle_span(sg, lid), the distance below which lanes combine by
// subgroup shuffles (1: none).
//
// The tree, in workgroup memory: for h = LANES/2, …, 1, lane l < h
// takes combine(v[l], v[l+h]), a barrier between steps. With subgroups
// the steps with h below span are subgroupShuffleXor(v, h) instead, no
// memory and no barrier: lane 0 combines the same values in the same
// order, so the result is the tree's bit for bit. That needs each
// subgroup to be a run of consecutive local invocation indices, which
// WGSL does not promise; shuffle_span checks every invocation (its
// subgroup_invocation_id is lid mod subgroup_size, all sizes equal) and
// answers 1, the whole tree, where one is not. span is read with
// workgroupUniformLoad, so the tree's barriers stay in uniform control
// flow. Without subgroups Subgroup holds an unused builtin (WGSL has no
// empty struct).
//
// With one lane combine_lanes returns acc and declares no workgroup
// memory: WebGPU zero-fills workgroup memory behind a barrier, which a
// CPU adapter pays for in every workgroup.
func lanesWGSL(lanes int, subgroups bool) string {
	if !subgroups || lanes <= 1 {
		head := "struct Subgroup { @builtin(local_invocation_id) unused: vec3<u32> }\n" +
			"fn shuffle_span(sg: Subgroup, lid: u32) -> u32 { return 1u; }\n"
		if lanes <= 1 {
			return head + "fn combine_lanes(lid: u32, lane: u32, acc: Item, span: u32) -> Item { return acc; }\n"
		}
		return head + `var<workgroup> scratch: array<Item, WG>;
fn combine_lanes(lid: u32, lane: u32, acc: Item, span: u32) -> Item {
  scratch[lid] = acc;
  workgroupBarrier();
  for (var h = LANES / 2u; h > 0u; h /= 2u) {
    if (lane < h) { scratch[lid] = combine(scratch[lid], scratch[lid + h]); }
    workgroupBarrier();
  }
  let r = scratch[lid];
  workgroupBarrier(); // the next round reuses scratch
  return r;
}
`
	}
	return `struct Subgroup { @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32 }
var<workgroup> scratch: array<Item, WG>;
var<workgroup> sg_mixed: atomic<u32>; // 1 where a subgroup is not a run of consecutive lids
var<workgroup> sg_sizes: atomic<u32>; // the OR of the subgroup sizes seen
var<workgroup> sg_span: u32;
fn shuffle_span(sg: Subgroup, lid: u32) -> u32 {
  atomicOr(&sg_mixed, select(0u, 1u, sg.lane != lid % sg.size));
  atomicOr(&sg_sizes, sg.size);
  workgroupBarrier();
  if (lid == 0u) {
    let sizes = atomicLoad(&sg_sizes);
    sg_span = select(1u, min(LANES, sizes), atomicLoad(&sg_mixed) == 0u && countOneBits(sizes) == 1u);
  }
  return workgroupUniformLoad(&sg_span);
}
fn combine_lanes(lid: u32, lane: u32, acc: Item, span: u32) -> Item {
  var v = acc;
  if (span < LANES) { // the tree's steps h >= span, in workgroup memory
    scratch[lid] = v;
    workgroupBarrier();
    for (var h = LANES / 2u; h >= span; h /= 2u) {
      if (lane < h) { scratch[lid] = combine(scratch[lid], scratch[lid + h]); }
      workgroupBarrier();
    }
    v = scratch[lid];
    workgroupBarrier(); // the next round reuses scratch
  }
  for (var h = span / 2u; h > 0u; h /= 2u) { // the rest inside the subgroup
    v = combine(v, subgroupShuffleXor(v, h));
  }
  return v;
}
`
}
