package shaders

import (
	"fmt"
	"strings"
)

// radixWGSL returns the coordinate helpers the kernels step their items
// with, unrolled for n dims of the Params field (shape or aux) and named
// with suffix:
//
//	coords_<suffix>(i) -> Coords         row-major coordinates of i (wraps past the end)
//	advance_<suffix>(&c, s, dims)        c += s in the mixed radix of dims
//	offset_<suffix>(c, base, stride)     base + Σ_d c_d · stride[d]
//
// coords divides with the field's magic pairs (div_by in the prelude).
// The loops pass dims and strides copied out of the uniform once, so they
// work on registers.
//
// They are generated rather than written as loops over a runtime index:
// software GPUs (lavapipe) keep a locally indexed array in registers only
// when every index is a constant, and run about ten times slower when not.
// advance needs each digit of s below its dim: c_d + s_d + carry < 2·dim,
// so one subtraction carries.
func radixWGSL(suffix, field string, n int) string {
	var b strings.Builder
	dim := func(d int) string { return fmt.Sprintf("dims[%d][%d]", d/4, d%4) }
	fmt.Fprintf(&b, "fn coords_%s(i: u32) -> Coords {\n  var c: Coords;\n  var rem = i;\n  var q = 0u;\n", suffix)
	for d := n - 1; d >= 0; d-- {
		fmt.Fprintf(&b, "  q = %s; c[%d] = rem - q * p.%s[%d][%d]; rem = q;\n", divByWGSL("rem", field, d), d, field, d/4, d%4)
	}
	fmt.Fprintf(&b, "  return c;\n}\n")
	fmt.Fprintf(&b, "fn advance_%s(c: ptr<function, Coords>, s: Coords, dims: array<vec4<u32>, 2>) {\n  var carry = 0u;\n  var v = 0u;\n", suffix)
	for d := n - 1; d >= 0; d-- {
		fmt.Fprintf(&b, "  v = (*c)[%d] + s[%d] + carry; carry = select(0u, 1u, v >= %s); (*c)[%d] = v - carry * %s;\n", d, d, dim(d), d, dim(d))
	}
	fmt.Fprintf(&b, "}\n")
	fmt.Fprintf(&b, "fn offset_%s(c: Coords, base: i32, stride: array<vec4<i32>, 2>) -> i32 {\n  return base", suffix)
	for d := range n {
		fmt.Fprintf(&b, " + i32(c[%d]) * stride[%d][%d]", d, d/4, d%4)
	}
	fmt.Fprintf(&b, ";\n}\n")
	return b.String()
}

// repeatWGSL returns repeat's source-coordinate helpers over the n output
// dims (shape) and source dims (aux):
//
//	source_coords(c) -> Coords                      q_d = c_d mod aux_d
//	advance_repeat(&c, &q, s, sq, shape, aux)       c += s (mixed radix), q += sq mod aux
//
// aux_d divides shape_d, so q tracks c mod aux with one subtraction per
// dim: q_d + sq_d + carry < 2·aux_d, with the carry of c's addition.
func repeatWGSL(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fn source_coords(c: Coords) -> Coords {\n  var q: Coords;\n")
	for d := range n {
		fmt.Fprintf(&b, "  q[%d] = c[%d] - %s * p.aux[%d][%d];\n", d, d, divByWGSL(fmt.Sprintf("c[%d]", d), "aux", d), d/4, d%4)
	}
	fmt.Fprintf(&b, "  return q;\n}\n")
	fmt.Fprintf(&b, "fn advance_repeat(c: ptr<function, Coords>, q: ptr<function, Coords>, s: Coords, sq: Coords,\n    shape: array<vec4<u32>, 2>, aux: array<vec4<u32>, 2>) {\n  var carry = 0u;\n  var v = 0u;\n  var w = 0u;\n")
	for d := n - 1; d >= 0; d-- {
		m, src := fmt.Sprintf("shape[%d][%d]", d/4, d%4), fmt.Sprintf("aux[%d][%d]", d/4, d%4)
		fmt.Fprintf(&b, "  v = (*c)[%d] + s[%d] + carry; w = (*q)[%d] + sq[%d] + carry;\n", d, d, d, d)
		fmt.Fprintf(&b, "  carry = select(0u, 1u, v >= %s); (*c)[%d] = v - carry * %s; (*q)[%d] = select(w, w - %s, w >= %s);\n", m, d, m, d, src, src)
	}
	fmt.Fprintf(&b, "}\n")
	return b.String()
}

// divByWGSL is ⌊n / dim d of field⌋ through the field's magic pairs
// (Params.shape_div, aux_div: dim d's pair is in [d/2] from component
// 2·(d mod 2)).
func divByWGSL(n, field string, d int) string {
	xy := [2]string{"xy", "zw"}[d%2]
	return fmt.Sprintf("div_by(%s, p.%s_div[%d].%c, p.%s_div[%d].%c)", n, field, d/2, xy[0], field, d/2, xy[1])
}
