// copy.wgsl: the plain copy the benchmark measures every kernel against:
// a vec4 storage-to-storage copy of the same bytes, no index arithmetic.
// Must agree with Go's copy(out, a).

// item copies item k (main_item.wgsl).
fn item(k: u32) {
  out[p.base_o + k] = load_a(i32(k * 4u));
}
