package shaders

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

//go:embed wgsl/*.wgsl
var wgslFiles embed.FS

// workgroupSize is the invocations per workgroup of every kernel.
const workgroupSize = 256

// groupLanes is GROUP in wgsl/prelude.wgsl: lanes that step through a run
// of items together.
const groupLanes = 8

// itemsPerInvocation is how many items an elementwise invocation takes
// at most on a GPU, as many as leave it fillInvocations invocations (see
// Device.itemsPer), and at least on a CPU
// adapter: its coordinates are found once and stepped for the rest. A CPU adapter has a few threads to keep busy and pays for every
// invocation it starts (SwiftShader: expand [64,1,4096]->[64,4,4096] took
// 6.8 ms with one item per invocation, 2.5 ms with eight; its copy kernel
// 2.5 ms), so it takes up to maxItemsPerInvocation while every thread
// still gets workgroupsPerThread workgroups (Device.itemsPer).
const (
	itemsPerInvocation    = 8
	maxItemsPerInvocation = 32
	workgroupsPerThread   = 4
)

// tiles returns the workgroups of a dispatch of items work items taken
// per to an invocation (wgsl/prelude.wgsl, first_item), and per raised
// to what keeps the grid within maxGroups workgroups.
func tiles(items int, maxGroups uint64, per int) (uint64, int) {
	per = max(per, int((uint64(items)+workgroupSize*maxGroups-1)/(workgroupSize*maxGroups)))
	return uint64((items + workgroupSize*per - 1) / (workgroupSize * per)), per
}

// Reductions loop over their outputs: once a grid would pass
// loopingGroups workgroups, each invocation takes up to 8 rounds.
const loopingGroups = 2048

// workgroupsFor returns the workgroups that cover items work items, perGroup
// to a workgroup per round of the reduce kernel's grid-stride loop.
func workgroupsFor(items, perGroup int) uint64 {
	groups := (items + perGroup - 1) / perGroup
	if groups > loopingGroups {
		groups = max(loopingGroups, (groups+itemsPerInvocation-1)/itemsPerInvocation)
	}
	return uint64(groups)
}

// maxRank is the most coalesced dims a kernel's Params can describe.
const maxRank = 8

// kernel names a WGSL file (wgsl/<kernel>.wgsl).
type kernel string

const (
	kernelGather kernel = "gather"
	kernelRepeat kernel = "repeat"
	kernelBinary kernel = "binary"
	// kernelBinaryWalk is binary's walk (walkPlan, TuneCPUOpBound).
	kernelBinaryWalk kernel = "binary_walk"
	kernelReduce     kernel = "reduce"
	kernelCopy       kernel = "copy"
	// kernelSoftmax is softmax along one dim, a line per invocation (a
	// CPU adapter's), kernelSoftmaxLanes a line per workgroup (a GPU's).
	kernelSoftmax      kernel = "softmax"
	kernelSoftmaxLanes kernel = "softmax_lanes"
	// kernelGatherRows looks up table rows by ids (Gather), an output
	// element per invocation; not kernelGather, the strided copy.
	kernelGatherRows kernel = "gather_rows"
	// kernelScatterAdd sums rows by ids (ScatterAdd), an output element
	// per invocation.
	kernelScatterAdd kernel = "scatter_add"
)

// entry returns the WGSL file that holds k's entry point, main, which
// finds an invocation's items as k's dispatches lay them out and hands
// them to the kernel's function: in tiles, to run (first_item), or one
// per invocation, to item (item_index). The reduce kernel and softmax's
// lanes have their own main ("").
func (k kernel) entry() string {
	switch k {
	case kernelGather, kernelRepeat, kernelBinary:
		return "wgsl/main_tiled.wgsl"
	case kernelBinaryWalk, kernelCopy, kernelSoftmax, kernelGatherRows, kernelScatterAdd:
		return "wgsl/main_item.wgsl"
	}
	return ""
}

// load says how a kernel reads an operand for one work item.
type load int

const (
	loadScalar  load = iota // one element: VEC is 1
	loadVec4                // four consecutive elements as one vec4
	loadSplat               // one element repeated into a vec4 (inner stride 0)
	loadUniform             // loadVec4 from a uniform binding of uniformBytes (see uniformLoads)
)

// uniformBytes is the size of a uniform operand's binding and of the
// array its kernel declares: WebGPU's guaranteed
// maxUniformBufferBindingSize.
const uniformBytes = 64 << 10

// programKey identifies one compiled pipeline. For reduce, rank and red
// count the kept and the reduced dims after merging runs: the merged
// pattern's interleaving only changes strides, which are uniforms, so
// patterns with the same counts share a pipeline.
type programKey struct {
	kernel kernel
	dtype  tensor.DType
	rank   int
	red    int
	vec    int
	a, b   load
	op     string // binary or reduce op; "" otherwise
	lanes  int    // reduce: invocations per output
	rvec   int    // reduce: reduced elements per load (4: a vec4 of the inner reduced dim)
	split  bool   // reduce: items fold chunks of an output into partials
	tiled  bool   // reduce: items are taken in tiles (LANES 1), not a grid-stride loop
	foldN  int    // reduce: an output's loads when few and fixed (LANES 1, unsplit); 0: a loop
	// subgroups: the lanes' last steps by subgroup shuffles (lanesWGSL),
	// where the device has the feature; the module enables it.
	subgroups bool
	fan       int // outputs per load along fanDim (0 or 1: no fanning)
	fanDim    int
	fan2      int // and along fan2Dim (0 or 1: one fan dim)
	fan2Dim   int
	vary      [4]bool // binary, fanned: whether a, b move along fanDim, then along fan2Dim
	tail      bool    // a fan does not divide its dim: copies are checked
	rowRuns   bool    // elementwise: every lane's items lie in one inner row
	walkDim   int     // binary_walk: the dim W it steps down
	hold      int     // binary_walk: the operand held in registers (0: a, 1: b)
}

func wgslType(dt tensor.DType) string {
	switch dt {
	case tensor.Int32:
		return "i32"
	case tensor.Uint32:
		return "u32"
	}
	return "f32"
}

// source returns the WGSL of k: the generated declarations, the prelude,
// the kernel's entry point and the kernel's file.
func (k programKey) source() (string, error) {
	body, err := wgslFiles.ReadFile("wgsl/" + string(k.kernel) + ".wgsl")
	if err != nil {
		return "", fmt.Errorf("shaders: no kernel %q", k.kernel)
	}
	prelude, _ := wgslFiles.ReadFile("wgsl/prelude.wgsl")
	var entry []byte
	if name := k.kernel.entry(); name != "" {
		entry, _ = wgslFiles.ReadFile(name)
	}
	var b strings.Builder
	if k.subgroups {
		b.WriteString(enableSubgroups)
	}
	elem := wgslType(k.dtype)
	item := elem
	if k.vec == 4 {
		item = "vec4<" + elem + ">"
	}
	bits := "u32" // Item's bits, for telling a NaN (extremeWGSL)
	if k.vec == 4 {
		bits = "vec4<u32>"
	}
	fmt.Fprintf(&b, "alias Elem = %s;\nalias Item = %s;\nalias Bits = %s;\n", elem, item, bits)
	fmt.Fprintf(&b, "const RANK: u32 = %du;\nconst VEC: u32 = %du;\nconst WG: u32 = %du;\n", k.rank, k.vec, workgroupSize)
	fmt.Fprintf(&b, "const FAN: u32 = %du;\nconst FAN_DIM: u32 = %du;\n", max(k.fan, 1), k.fanDim)
	fmt.Fprintf(&b, "const FAN2: u32 = %du;\nconst FAN2_DIM: u32 = %du;\nconst TAIL: bool = %v;\n", max(k.fan2, 1), k.fan2Dim, k.tail)
	fmt.Fprintf(&b, "const A_VARIES: bool = %v;\nconst B_VARIES: bool = %v;\n", k.vary[0], k.vary[1])
	fmt.Fprintf(&b, "const ROW_RUNS: bool = %v;\n", k.rowRuns)
	fmt.Fprintf(&b, "const A_VARIES2: bool = %v;\nconst B_VARIES2: bool = %v;\n", k.vary[2], k.vary[3])
	binding := 1
	operand := func(name string, l load) {
		switch l {
		case loadVec4:
			fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> %s: array<vec4<Elem>>;\n", binding, name)
		case loadUniform:
			fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> %s: array<vec4<Elem>, %d>;\n", binding, name, uniformBytes/16)
		default:
			fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> %s: array<Elem>;\n", binding, name)
		}
		binding++
		switch l {
		case loadScalar:
			fmt.Fprintf(&b, "fn load_%s(off: i32) -> Item { return %s[u32(off)]; }\n", name, name)
		case loadVec4, loadUniform:
			fmt.Fprintf(&b, "fn load_%s(off: i32) -> Item { return %s[u32(off) / 4u]; }\n", name, name)
		case loadSplat:
			fmt.Fprintf(&b, "fn load_%s(off: i32) -> Item { return Item(%s[u32(off)]); }\n", name, name)
		}
	}
	switch k.kernel {
	case kernelReduce:
		ident, combine := reduceOpWGSL(k.op, elem)
		fmt.Fprintf(&b, "const RED: u32 = %du;\nconst LANES: u32 = %du;\nconst RVEC: u32 = %du;\nconst SPLIT: bool = %v;\nconst TILED: bool = %v;\n", k.red, k.lanes, max(k.rvec, 1), k.split, k.tiled)
		fmt.Fprintf(&b, "const IDENTITY_BITS: u32 = %#xu;\n", ident)
		fmt.Fprintf(&b, "fn combine(x: Item, y: Item) -> Item { %s }\n", combine)
		b.WriteString(lanesWGSL(k.lanes, k.subgroups))
		fmt.Fprintf(&b, "const FOLD_N: u32 = %du;\n", k.foldN)
		// fold_at reads what one step of a fold takes, at index i of a:
		// an output's element (VEC 1), four neighbouring outputs' elements
		// (VEC 4), or four neighbouring reduced elements combined (RVEC
		// 4); LOAD_UNIT is the elements per index. fold_load reads it at
		// element offset off.
		switch {
		case k.vec == 4:
			b.WriteString("@group(0) @binding(1) var<storage, read> a: array<vec4<Elem>>;\nconst LOAD_UNIT: u32 = 4u;\n")
			b.WriteString("fn fold_at(i: u32) -> Item { return a[i]; }\n")
		case k.rvec == 4:
			b.WriteString("@group(0) @binding(1) var<storage, read> a: array<vec4<Elem>>;\nconst LOAD_UNIT: u32 = 4u;\n")
			b.WriteString("fn fold_at(i: u32) -> Item { let v = a[i]; return combine(combine(v.x, v.y), combine(v.z, v.w)); }\n")
		default:
			b.WriteString("@group(0) @binding(1) var<storage, read> a: array<Elem>;\nconst LOAD_UNIT: u32 = 1u;\n")
			b.WriteString("fn fold_at(i: u32) -> Item { return a[i]; }\n")
		}
		b.WriteString("fn fold_load(off: i32) -> Item { return fold_at(u32(off) / LOAD_UNIT); }\n")
		binding = 2
	case kernelBinary, kernelBinaryWalk:
		operand("a", k.a)
		operand("b", k.b)
		fmt.Fprintf(&b, "fn apply(x: Item, y: Item) -> Item { %s }\n", binaryOpWGSL(k.op, elem))
	case kernelGather:
		operand("a", k.a)
		b.WriteString(unaryOpWGSL(k.op, elem))
	case kernelSoftmax, kernelSoftmaxLanes:
		operand("a", k.a)
		b.WriteString(specialWGSL)
	case kernelGatherRows:
		operand("a", k.a)
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> ids: array<i32>;\n", binding)
		binding++
	case kernelScatterAdd:
		operand("a", k.a)
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> firsts: array<u32>;\n", binding)
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> rows_at: array<u32>;\n", binding+1)
		binding += 2
	default:
		operand("a", k.a)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out: array<Item>;\n", binding)
	b.Write(prelude)
	switch k.kernel {
	case kernelBinary:
		b.WriteString(fanBinaryWGSL(max(k.fan, 1), max(k.fan2, 1), k.vary))
	case kernelBinaryWalk:
		fmt.Fprintf(&b, "const WALK_DIM: u32 = %du;\nconst HOLD: u32 = %du;\n", k.walkDim, k.hold)
		b.WriteString(walkWGSL(max(k.fan, 1), k.hold, [2]load{k.a, k.b}[1-k.hold]))
		b.WriteString(radixWGSL("walk", "aux", k.rank))
	default:
		b.WriteString(fanStoresWGSL(max(k.fan, 1), max(k.fan2, 1)))
	}
	b.WriteString(radixWGSL("out", "shape", k.rank))
	switch k.kernel {
	case kernelRepeat:
		b.WriteString(repeatWGSL(k.rank))
	case kernelReduce:
		b.WriteString(radixWGSL("red", "aux", k.red))
		b.WriteString(foldFixedWGSL(k.foldN, k.red))
	}
	b.Write(entry)
	b.Write(body)
	return b.String(), nil
}

// fanStoresWGSL returns store_fan(base, c, q, v), which stores v to every
// copy of an item's fan block, written out copy by copy: a software GPU
// runs a loop's every iteration under a lane mask, straight-line stores
// without.
func fanStoresWGSL(fan, fan2 int) string {
	var b strings.Builder
	b.WriteString("fn store_fan(base: i32, c: Coords, q: Coords, v: Item) {\n")
	b.WriteString(fanStepsWGSL)
	for j := range fan {
		for j2 := range fan2 {
			fmt.Fprintf(&b, "  if (fan_ok(c, q, %du, %du)) { out[%s] = v; }\n", j, j2, fanCopyWGSL(j, j2))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// fanStepsWGSL opens a store_fan* body, whose base is the block's first
// copy (fan_base in the prelude): the steps to the next copy along each fan
// dim.
const fanStepsWGSL = "  let s1 = p.fan.y * p.fan.z;\n  let s2 = p.fan2.y * p.fan2.z;\n"

// fanCopyWGSL is the output item of copy (j, j2) of a fan block.
func fanCopyWGSL(j, j2 int) string {
	off := "base"
	if j > 0 {
		off += fmt.Sprintf(" + %d * s1", j)
	}
	if j2 > 0 {
		off += fmt.Sprintf(" + %d * s2", j2)
	}
	return fmt.Sprintf("u32(%s) / VEC", off)
}

// fanBinaryWGSL returns store_fan_binary(base, c, oa, ob), which stores
// every copy of a binary item's fan block, written out copy by copy: each
// operand is loaded once per value it takes in the block, along the fan
// dims it varies on (vary: a, b along FAN_DIM, then along FAN2_DIM).
func fanBinaryWGSL(fan, fan2 int, vary [4]bool) string {
	var b strings.Builder
	b.WriteString("fn store_fan_binary(base: i32, c: Coords, oa: i32, ob: i32) {\n  let q = Coords();\n")
	b.WriteString(fanStepsWGSL)
	pick := func(j, j2, k int) (int, int) {
		if !vary[k] {
			j = 0
		}
		if !vary[2+k] {
			j2 = 0
		}
		return j, j2
	}
	loaded := map[[3]int]bool{}
	for j := range fan {
		for j2 := range fan2 {
			for k, name := range []string{"a", "b"} {
				lj, lj2 := pick(j, j2, k)
				if loaded[[3]int{k, lj, lj2}] {
					continue
				}
				loaded[[3]int{k, lj, lj2}] = true
				st := [2]string{"x", "y"}[k]
				fmt.Fprintf(&b, "  let %s%d_%d = load_%s(o%s + %d * p.fan_load.%s + %d * p.fan_load.%s);\n",
					name, lj, lj2, name, name, lj, st, lj2, [2]string{"z", "w"}[k])
			}
			aj, aj2 := pick(j, j2, 0)
			bj, bj2 := pick(j, j2, 1)
			fmt.Fprintf(&b, "  if (fan_ok(c, q, %du, %du)) { out[%s] = apply(a%d_%d, b%d_%d); }\n",
				j, j2, fanCopyWGSL(j, j2), aj, aj2, bj, bj2)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// walkWGSL returns binary_walk's helpers for a fan of FAN outputs along
// FAN_DIM with operand hold (0: a, 1: b) held and the other, the walker,
// read as l:
//
//	WALK_UNIT                                elements per index of the walker's array
//	walk_held(oa, ob) -> array<Item, FAN>    the held operand's values along FAN_DIM
//	store_walk(io, c, iw, h, s1)             one step: the walker at index iw, FAN stores from out[io]
//
// written out value by value, so the array stays in registers. The walk
// indexes the walker and out directly, not through element offsets:
// SwiftShader, add [64,1,4096]+[1,4,4096]: 1.19 to 1.26 of the copy
// kernel indexing, 0.98 dividing an offset at every access (same runs).
func walkWGSL(fan, hold int, l load) string {
	var b strings.Builder
	held, walker := [2]string{"a", "b"}[hold], [2]string{"a", "b"}[1-hold]
	unit, value := 1, fmt.Sprintf("%s[u32(iw)]", walker)
	switch l {
	case loadVec4, loadUniform:
		unit = 4
	case loadSplat:
		value = fmt.Sprintf("Item(%s[u32(iw)])", walker)
	}
	fmt.Fprintf(&b, "const WALK_UNIT: i32 = %d;\n", unit)
	b.WriteString("fn walk_held(oa: i32, ob: i32) -> array<Item, FAN> {\n  var h: array<Item, FAN>;\n")
	for j := range fan {
		fmt.Fprintf(&b, "  h[%d] = load_%s(o%s + %d * p.fan_load.%c);\n", j, held, held, j, "xy"[hold])
	}
	b.WriteString("  return h;\n}\n")
	b.WriteString("fn store_walk(io: u32, c: Coords, iw: i32, h: array<Item, FAN>, s1: u32) {\n  let q = Coords();\n")
	fmt.Fprintf(&b, "  let v = %s;\n", value)
	for j := range fan {
		args := fmt.Sprintf("v, h[%d]", j)
		if hold == 0 {
			args = fmt.Sprintf("h[%d], v", j)
		}
		at := "io"
		if j > 0 {
			at = fmt.Sprintf("io + %du * s1", j)
		}
		fmt.Fprintf(&b, "  if (fan_ok(c, q, %du, 0u)) { out[%s] = apply(%s); }\n", j, at, args)
	}
	b.WriteString("}\n")
	return b.String()
}

// foldFixedWGSL returns fold_fixed(off, r0, rs, aux, stride), which folds
// an output's n loads written out one by one (wgsl/reduce.wgsl).
func foldFixedWGSL(n, red int) string {
	var b strings.Builder
	b.WriteString("fn fold_fixed(off: i32, r0: Coords, rs: Coords, aux: array<vec4<u32>, 2>, stride: array<vec4<i32>, 2>) -> Item {\n  var acc = identity();\n  var r = r0;\n")
	for i := range n {
		if red == 1 { // one reduced dim: load i is i·RVEC elements along it
			fmt.Fprintf(&b, "  acc = combine(acc, fold_load(off + %d * i32(RVEC) * stride[0][0]));\n", i)
			continue
		}
		b.WriteString("  acc = combine(acc, fold_load(offset_red(r, off, stride)));\n")
		if i < n-1 {
			b.WriteString("  advance_red(&r, rs, aux);\n")
		}
	}
	b.WriteString("  return acc;\n}\n")
	return b.String()
}

// binaryOpWGSL returns the body of apply(x, y) for the binary op named op,
// on Items of elem that are scalars or vec4s alike (tensor's apply is the
// reference).
func binaryOpWGSL(op, elem string) string {
	switch op {
	case "sub":
		return "return x - y;"
	case "mul":
		return "return x * y;"
	case "div":
		return "return x / y;"
	case "max", "min":
		return extremeWGSL(op, elem)
	case "eq": // select is componentwise for a vec4 Item, and NaN == NaN is false
		return "return select(Item(0), Item(1), x == y);"
	}
	return "return x + y;"
}

// extremeWGSL returns the body of max or min (op) of x and y on elem:
// WGSL leaves max and min of a NaN indeterminate, and lavapipe returns
// the other operand, but tensor's Max and Min are NaN when either is (a
// NaN is not lost when a P(max) is gathered), so on f32 a NaN operand
// gives x + y, a NaN (isNaNWGSL).
func extremeWGSL(op, elem string) string {
	if elem != "f32" {
		return fmt.Sprintf("return %s(x, y);", op)
	}
	return fmt.Sprintf("return select(%s(x, y), x + y, %s | %s);", op, isNaNWGSL("x"), isNaNWGSL("y"))
}

// isNaNWGSL is the WGSL that tells whether each component of the f32
// Item x is a NaN, by its bits (exponent all ones, a fraction): lavapipe
// folds x != x to false, and SwiftShader's exp and log turn a NaN into
// a number.
func isNaNWGSL(x string) string {
	return fmt.Sprintf("((bitcast<Bits>(%s) & Bits(0x7fffffffu)) > Bits(0x7f800000u))", x)
}

// specialWGSL declares inf() and nan(), +Inf and a quiet NaN as f32
// Items, for the kernels whose ops need them (unaryOpWGSL, softmax). They
// come from bits read at run time: as constants they would be a
// shader-creation error. is_nan and is_inf tell them by bits (lavapipe
// folds x != x to false).
const specialWGSL = "var<private> special_bits: vec2<u32> = vec2<u32>(0x7f800000u, 0x7fc00000u);\n" +
	"fn inf() -> Item { return Item(bitcast<f32>(special_bits.x)); }\n" +
	"fn nan() -> Item { return Item(bitcast<f32>(special_bits.y)); }\n" +
	"fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }\n" +
	"fn is_inf(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) == 0x7f800000u; }\n"

// unaryOpWGSL returns unary(v), which the gather kernel applies to every
// element it reads: the unary op named op (tensor's unaryFloat and
// unaryOrdered are the reference), or none for a plain gather (op "").
// WGSL leaves log, sqrt and inverseSqrt indeterminate outside their
// domains, so the IEEE 754 results there (what Go's math returns: NaN
// below 0, log(±0) = −Inf, 1/√±0 = ±Inf) are picked explicitly; tanh
// is sign(x) past |x| = 10, where tanh is ±1 in float32 (1 − tanh 10 ≈
// 4e−9, below half an ulp of 1), so an implementation that divides sinh
// by cosh never sees ∞/∞. A NaN passes through every op as a NaN (told
// by its bits, isNaNWGSL): SwiftShader's exp and log turn it into a
// number. The infinities and NaN are specialWGSL's. WGSL has no erf: it
// is Abramowitz & Stegun's 7.1.26 (Handbook of Mathematical Functions,
// 1964), 1 − (a₁t + … + a₅t⁵)·e^(−x²) with t = 1/(1 + p·|x|), of
// absolute error below 1.5e−7, the sign put back (erf is odd), and below
// |x| = ½ its Taylor series to x¹¹ (2/√π·(x − x³/3 + x⁵/10 − …); the
// first term left out, x¹³/9360, is below 2e−8 of erf at ½), which keeps
// small values (and −0) to float32's precision; past |x| = 4 it is ±1
// in float32.
func unaryOpWGSL(op, elem string) string {
	body := map[string]string{
		"":      "return v;",
		"exp":   "return exp(v);",
		"log":   "return select(select(log(v), -inf(), v == Item(0)), nan(), v < Item(0));",
		"neg":   "return -v;",
		"sqrt":  "return select(sqrt(v), nan(), v < Item(0));",
		"rsqrt": "return select(select(inverseSqrt(v), Item(1) / v, v == Item(0)), nan(), v < Item(0));",
		"tanh":  "return select(tanh(v), sign(v), abs(v) > Item(10));",
		"relu":  "return select(v, Item(0), v < Item(0));",
		"step":  "return select(Item(0), Item(1), v > Item(0));",
		"erf": "let a = abs(v); let x2 = min(v * v, Item(100)); " +
			"let near = v * Item(1.1283791671) * (Item(1) + x2 * (Item(-0.33333333) + x2 * (Item(0.1) + x2 * (Item(-0.023809524) + x2 * (Item(0.0046296296) + x2 * Item(-0.00075757576)))))); " +
			"let t = Item(1) / (Item(1) + Item(0.3275911) * a); " +
			"let p = t * (Item(0.254829592) + t * (Item(-0.284496736) + t * (Item(1.421413741) + t * (Item(-1.453152027) + t * Item(1.061405429))))); " +
			"return select(select(Item(-1), Item(1), v > Item(0)) * (Item(1) - p * exp(-x2)), near, a < Item(0.5));",
		"square": "return v * v;",
	}[op]
	head := ""
	switch op {
	case "log", "sqrt", "rsqrt":
		head = specialWGSL
	}
	switch {
	case elem == "f32" && slices.Contains([]string{"exp", "log", "sqrt", "rsqrt", "tanh", "relu", "erf"}, op):
		// A NaN passes through (relu too: NVIDIA's compiler turns its
		// select into a max, which drops it).
		return head + "fn unary_of(v: Item) -> Item { " + body + " }\n" +
			"fn unary(v: Item) -> Item { return select(unary_of(v), v, " + isNaNWGSL("v") + "); }\n"
	}
	return head + "fn unary(v: Item) -> Item { " + body + " }\n"
}

// reduceOpWGSL returns the identity's bits and the combine body of op.
func reduceOpWGSL(op, elem string) (uint32, string) {
	switch op {
	case "max":
		return map[string]uint32{"f32": 0xff800000, "i32": 0x80000000, "u32": 0}[elem], extremeWGSL(op, elem)
	case "min":
		return map[string]uint32{"f32": 0x7f800000, "i32": 0x7fffffff, "u32": 0xffffffff}[elem], extremeWGSL(op, elem)
	}
	return 0, "return x + y;"
}
