package sbpcheck

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Case is one random global computation.
type Case struct {
	Name string
	// Run runs it on be and returns an error describing any difference
	// from the single-device result.
	Run func(be tensor.Backend) error
	// op and meshRank say what runs where (ThinMeshes); meshRank is 0
	// for a case with no placement of its own.
	op       string
	meshRank int
}

// ThinMeshes keeps every case on a 1-D placement and every every-th case
// of each op on a mesh (the first of each op among them), in order. A
// device's kernels see only local shapes, and a mesh's shards are shapes
// the 1-D placements and the kept mesh cases already give them; what a
// mesh adds is the SBP logic of two dims at once, which runs in full on
// the CPU (package sbp's property tests). The WebGPU suite runs the
// thinned list, since each case there waits on several read-backs.
func ThinMeshes(cs []Case, every int) []Case {
	seen := map[string]int{}
	var kept []Case
	for _, c := range cs {
		if c.meshRank >= 2 {
			i := seen[c.op]
			seen[c.op]++
			if i%every != 0 {
				continue
			}
		}
		kept = append(kept, c)
	}
	return kept
}

// Cases returns n random cases drawn from seed.
func Cases(seed uint64, n int) []Case {
	r := rand.New(rand.NewPCG(seed, seed^0x5b9))
	cs := make([]Case, 0, n)
	for len(cs) < n {
		cs = append(cs, newCase(r))
	}
	return cs
}

type spec struct {
	op     sbp.Op
	shapes []tensor.Shape
	dtype  tensor.DType
	dtypes []tensor.DType // per input (gather's ids are int32); nil: dtype for all
	p      sbp.Placement
	in     []sbp.NdSbp
	to     sbp.NdSbp // the output is boxed to this before it is gathered
	values [][]float64
	exact  bool    // Apply must run the op on in as it is, with no boxing, and give the SBP to
	tol    float64 // the relative tolerance against the single device (tolerance)
}

// SignatureCases returns a case for every valid signature of op on inputs
// of the given shapes and dtype on every placement of Placements, one
// signature per mesh dim (of those taking the same inputs, the first, the
// one Infer picks), where the combination holds on the placement
// (sbp.PlacementFault): the inputs are scattered with exactly the
// signature's SBPs, Apply must run the op on them as they are (no boxing)
// and give the signature's output SBP, and the gathered output must equal
// the single-device result. The values are drawn from seed.
func SignatureCases(seed uint64, op sbp.Op, shapes []tensor.Shape, dt tensor.DType) []Case {
	return signatureCasesWhere(seed, op, shapes, dt, nil)
}

// signatureCasesWhere is SignatureCases of the signatures keep keeps
// (all for nil).
func signatureCasesWhere(seed uint64, op sbp.Op, shapes []tensor.Shape, dt tensor.DType, keep func(sbp.Signature) bool) []Case {
	return signatureCasesOf(seed, op, shapes, func(r *rand.Rand, i int) (tensor.DType, []float64) {
		return dt, randomValues(r, shapes[i], dt, op.Name() == "div" && i == 1)
	}, keep)
}

// signatureCasesOf is signatureCasesWhere with each input's dtype and
// values drawn by draw (input i).
func signatureCasesOf(seed uint64, op sbp.Op, shapes []tensor.Shape, draw func(r *rand.Rand, i int) (tensor.DType, []float64), keep func(sbp.Signature) bool) []Case {
	r := rand.New(rand.NewPCG(seed, seed^0x51c))
	out, err := op.OutShape(shapes)
	if err != nil {
		return []Case{{Name: fmt.Sprintf("%v %v", op, shapes), Run: func(tensor.Backend) error { return err }}}
	}
	// Infer takes the first signature whose inputs match; later ones with
	// the same inputs (repeat's B -> S(d) after B -> B…) never run as they are.
	var sigs []sbp.Signature
	for _, sg := range op.Signatures(shapes) {
		if keep != nil && !keep(sg) {
			continue
		}
		if !slices.ContainsFunc(sigs, func(x sbp.Signature) bool { return slices.Equal(x.In, sg.In) }) {
			sigs = append(sigs, sg)
		}
	}
	if len(sigs) == 0 {
		return []Case{{Name: fmt.Sprintf("%v %v", op, shapes), Run: func(tensor.Backend) error { return fmt.Errorf("no signatures") }}}
	}
	var cs []Case
	for _, p := range Placements() {
		choice := make([]int, p.MeshRank())
		for {
			s := spec{op: op, shapes: shapes, p: p, in: make([]sbp.NdSbp, len(shapes)), to: make(sbp.NdSbp, p.MeshRank()), exact: true, tol: tolerance(op)}
			for i := range shapes {
				s.in[i] = make(sbp.NdSbp, p.MeshRank())
				for m, c := range choice {
					s.in[i][m] = sigs[c].In[i]
				}
				dt, v := draw(r, i)
				s.dtypes, s.values = append(s.dtypes, dt), append(s.values, v)
			}
			s.dtype = s.dtypes[0]
			for m, c := range choice {
				s.to[m] = sigs[c].Out
			}
			valid := sbp.Validate(out, p, s.to) == nil
			for i := range shapes {
				valid = valid && sbp.Validate(shapes[i], p, s.in[i]) == nil
			}
			if valid && sbp.PlacementFault(op, shapes, p, s.in, s.to) == "" {
				cs = append(cs, Case{Name: fmt.Sprintf("%v %v %v on %v with %v -> %v", op, s.dtype, shapes, p, s.in, s.to), Run: s.run, op: op.Name(), meshRank: p.MeshRank()})
			}
			if !sbp.NextChoice(choice, len(sigs)) {
				break
			}
		}
	}
	return cs
}

// UnarySignatureCases are SignatureCases of every unary op in every dtype
// it takes and of mean: on a [7 3] tensor, which splits unevenly over 2
// to 5 devices and leaves empty shards, and a rank-0 one; means that
// keep, reduce and drop dims.
func UnarySignatureCases() []Case {
	var cs []Case
	seed := uint64(100)
	add := func(op sbp.Op, shape tensor.Shape, dt tensor.DType) {
		seed++
		cs = append(cs, SignatureCases(seed, op, []tensor.Shape{shape}, dt)...)
	}
	for _, op := range tensor.UnaryOps() {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			if op.Takes(dt) {
				add(sbp.Unary(op), tensor.Shape{7, 3}, dt)
			}
		}
		add(sbp.Unary(op), tensor.Shape{}, tensor.Float32)
	}
	for _, m := range [][2]tensor.Shape{{{7, 3}, {1, 3}}, {{7, 3}, {7, 1}}, {{7, 3}, {}}, {{2, 7, 3}, {7, 1}}, {{3, 1}, {3, 1}}} {
		add(sbp.Mean(m[0], m[1]), m[0], tensor.Float32)
	}
	return cs
}

// Placements are the meshes SignatureCases runs on: 1 to 5 devices in a
// row, and 2 × 2 and 2 × 3 meshes.
func Placements() []sbp.Placement {
	var ps []sbp.Placement
	for n := 1; n <= 5; n++ {
		p, _ := sbp.Devices(n)
		ps = append(ps, p)
	}
	for _, s := range []string{"[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"} {
		p, _ := sbp.ParsePlacement(s)
		ps = append(ps, p)
	}
	return ps
}

func newCase(r *rand.Rand) Case {
	s := spec{dtype: []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32}[r.IntN(3)], p: randomPlacement(r)}
	s.op, s.shapes = randomOp(r, s.dtype)
	for _, sh := range s.shapes {
		s.in = append(s.in, randomNd(r, sh, s.p))
		s.values = append(s.values, randomValues(r, sh, s.dtype, s.op.Name() == "div" && len(s.values) == 1))
	}
	if out, err := s.op.OutShape(s.shapes); err == nil {
		s.to = randomNd(r, out, s.p)
	}
	s.tol = tolerance(s.op)
	name := fmt.Sprintf("%v %v on %v with %v, boxed to %v", s.op, s.shapes, s.p, s.in, s.to)
	return Case{Name: name, Run: s.run}
}

func (s spec) run(be tensor.Backend) error {
	full := make([]tensor.Tensor, len(s.shapes))
	globals := make([]*sbp.Global, len(s.shapes))
	for i, sh := range s.shapes {
		dt := s.dtype
		if s.dtypes != nil {
			dt = s.dtypes[i]
		}
		t, err := fromValues(dt, sh, s.values[i])
		if err != nil {
			return err
		}
		full[i] = t
		if globals[i], err = sbp.Scatter(be, t, s.p, s.in[i]); err != nil {
			return fmt.Errorf("scatter input %d: %w", i, err)
		}
		back, err := globals[i].Full()
		if err != nil {
			return fmt.Errorf("gather input %d: %w", i, err)
		}
		if err := same(back, t, 0); err != nil {
			return fmt.Errorf("input %d scattered by %v and gathered: %w", i, s.in[i], err)
		}
	}
	want, err := single(s.op, full)
	if err != nil {
		return fmt.Errorf("single device: %w", err)
	}
	y, applied, err := sbp.Apply(s.op, globals...)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if s.exact {
		for i := range s.in {
			if !applied.Plan.InSbp[i].Equal(s.in[i]) {
				return fmt.Errorf("input %d was boxed from %v to %v, but the signature takes it as it is", i, s.in[i], applied.Plan.InSbp[i])
			}
		}
		if !y.Sbp().Equal(s.to) {
			return fmt.Errorf("the output is %v, want the signature's %v", y.Sbp(), s.to)
		}
	}
	boxed, plan, moved, err := y.BoxMoved(s.to)
	if err != nil {
		return fmt.Errorf("box %v to %v: %w", y.Sbp(), s.to, err)
	}
	if err := Moves(plan, moved); err != nil {
		return fmt.Errorf("box %v to %v: %w", y.Sbp(), s.to, err)
	}
	got, err := boxed.Full()
	if err != nil {
		return fmt.Errorf("gather the output: %w", err)
	}
	if err := same(got, want, s.tol); err != nil {
		return fmt.Errorf("ran as %v -> %v, boxed to %v: %w", applied.Plan.InSbp, applied.Plan.OutSbp, s.to, err)
	}
	return nil
}

// single is the op on one device, the CPU reference.
func single(op sbp.Op, in []tensor.Tensor) (tensor.Tensor, error) {
	shapes := make([]tensor.Shape, len(in))
	for i, t := range in {
		shapes[i] = t.Shape()
	}
	out, err := op.OutShape(shapes)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return op.Local(tensor.CPU{}, in, out)
}

// same compares within tol (tensor.AgreeValues; 0: exactly, NaN
// matching NaN): every value in the suite is a small integer, so sums and
// products are exact in float32 whatever their order.
func same(got, want tensor.Tensor, tol float64) error {
	if !got.Shape().Equal(want.Shape()) || got.DType() != want.DType() {
		return fmt.Errorf("got %v %v, want %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if !tensor.AgreeValues(g[i], w[i], tol) {
			return fmt.Errorf("element %d (row-major) of %v is %v, want %v (tolerance %g)", i, want.Shape(), g[i], w[i], tol)
		}
	}
	return nil
}

// tolerance is what an op's gathered output is held to against the
// single device's: exactly, but for mean, whose parts divide by the count
// before they add, softmax (exp and a division on a GPU), and the unary ops whose WGSL builtins (exp, log, sqrt,
// rsqrt, tanh) may differ from the CPU's in their last bits.
func tolerance(op sbp.Op) float64 {
	switch p := sbp.Params(op); {
	case p.Name == "mean" || p.Name == "softmax":
		return tensor.Tolerance
	case p.Unary != 0 && p.Unary != tensor.Neg && p.Unary != tensor.Relu && p.Unary != tensor.Step:
		return tensor.Tolerance
	}
	return 0
}

func randomPlacement(r *rand.Rand) sbp.Placement {
	var hierarchy []int
	if r.IntN(3) == 0 {
		hierarchy = []int{1 + r.IntN(3), 1 + r.IntN(3)}
	} else {
		hierarchy = []int{1 + r.IntN(8)}
	}
	n := hierarchy[0]
	if len(hierarchy) > 1 {
		n *= hierarchy[1]
	}
	ranks := r.Perm(n + 2)[:n] // any distinct ranks, not only 0..n-1
	p, err := sbp.NewPlacement([]string{"cpu", "cuda"}[r.IntN(2)], ranks, hierarchy)
	if err != nil {
		panic(err)
	}
	return p
}

// randomNd draws one SBP per mesh dim for a tensor of shape: splits of
// any axis (uneven and empty shards come from small sizes), broadcast,
// and partials of one op.
func randomNd(r *rand.Rand, shape tensor.Shape, p sbp.Placement) sbp.NdSbp {
	partial := sbp.P(tensor.ReduceOps()[r.IntN(3)])
	nd := make(sbp.NdSbp, p.MeshRank())
	for m := range nd {
		switch k := r.IntN(5); {
		case k < 2 && len(shape) > 0:
			nd[m] = sbp.S(r.IntN(len(shape)))
		case k < 4:
			nd[m] = sbp.B
		default:
			nd[m] = partial
		}
	}
	return nd
}

func randomShape(r *rand.Rand, rank int) tensor.Shape {
	s := make(tensor.Shape, rank)
	for d := range s {
		switch k := r.IntN(10); {
		case k == 0:
			s[d] = 0
		case k < 4:
			s[d] = 1
		default:
			s[d] = 2 + r.IntN(6)
		}
	}
	return s
}

// randomOp draws an op and its input shapes; dt is the inputs' dtype
// (a scale of an integer tensor takes a whole factor, of a uint32 one a
// factor >= 0; a unary op is one dt takes; a mean is of float32 only).
func randomOp(r *rand.Rand, dt tensor.DType) (sbp.Op, []tensor.Shape) {
	switch r.IntN(11) {
	case 10: // softmax along a random dim of float32 (counted from either end), else a unary op
		if in := randomShape(r, 1+r.IntN(3)); dt == tensor.Float32 {
			axis := r.IntN(len(in))
			if r.IntN(2) == 0 {
				axis -= len(in)
			}
			return sbp.Softmax(axis), []tensor.Shape{in}
		}
		return sbp.Unary(tensor.Relu), []tensor.Shape{randomShape(r, r.IntN(4))}
	case 8: // a unary op the dtype takes
		var ops []tensor.UnaryOp
		for _, op := range tensor.UnaryOps() {
			if op.Takes(dt) {
				ops = append(ops, op)
			}
		}
		return sbp.Unary(ops[r.IntN(len(ops))]), []tensor.Shape{randomShape(r, r.IntN(4))}
	case 9: // mean of float32, else a sum
		in := randomShape(r, r.IntN(5))
		to := broadcastable(r, in)
		if dt != tensor.Float32 {
			return sbp.Reduce(tensor.Sum, to), []tensor.Shape{in}
		}
		return sbp.Mean(in, to), []tensor.Shape{in}
	case 0: // expand
		in := randomShape(r, r.IntN(4))
		lead := r.IntN(3)
		size := make([]int, lead+len(in))
		for d := range size {
			switch {
			case d < lead:
				size[d] = r.IntN(4)
			case in[d-lead] == 1 && r.IntN(2) == 0:
				size[d] = r.IntN(5)
			case r.IntN(3) == 0:
				size[d] = -1
			default:
				size[d] = in[d-lead]
			}
		}
		return sbp.Expand(size), []tensor.Shape{in}
	case 1: // repeat
		in := randomShape(r, r.IntN(4))
		times := make([]int, r.IntN(2)+len(in))
		for d := range times {
			times[d] = []int{1, 1, 2, 3, 0}[r.IntN(5)]
		}
		return sbp.Repeat(times), []tensor.Shape{in}
	case 2: // binary
		out := randomShape(r, r.IntN(4))
		a, b := broadcastable(r, out), broadcastable(r, out)
		return sbp.Binary(tensor.BinaryOps()[r.IntN(len(tensor.BinaryOps()))]), []tensor.Shape{a, b}
	case 3: // reduce
		op := tensor.ReduceOps()[r.IntN(3)]
		in := randomShape(r, r.IntN(5))
		if op != tensor.Sum {
			for d := range in {
				in[d] = max(in[d], 1)
			}
		}
		return sbp.Reduce(op, broadcastable(r, in)), []tensor.Shape{in}
	case 4: // matmul: two matrices, or batches whose dims broadcast
		m, k, n := r.IntN(6), r.IntN(6), r.IntN(6)
		var ba, bb tensor.Shape
		if r.IntN(2) == 0 {
			batch := randomShape(r, 1+r.IntN(2))
			ba, bb = broadcastable(r, batch), broadcastable(r, batch)
		}
		return sbp.Matmul(), []tensor.Shape{append(ba, m, k), append(bb, k, n)}
	case 5: // transpose, permute or reshape
		in := randomShape(r, 2+r.IntN(3))
		switch r.IntN(3) {
		case 0:
			return sbp.Transpose(), []tensor.Shape{in}
		case 1:
			return sbp.Permute(r.Perm(len(in))), []tensor.Shape{in}
		}
		return sbp.Reshape(RandomReshape(r, in)), []tensor.Shape{in}
	case 6: // scale
		factors := map[tensor.DType][]float64{tensor.Float32: {-1, 2, -0.5, 0, 3, 1e-50}, tensor.Int32: {-1, 2, -3, 0, 1}, tensor.Uint32: {2, 0, 3, 1}}[dt]
		return sbp.Scale(factors[r.IntN(len(factors))]), []tensor.Shape{randomShape(r, r.IntN(4))}
	default: // the backward of a repeat
		in := randomShape(r, r.IntN(4))
		times := make([]int, r.IntN(2)+len(in))
		for d := range times {
			times[d] = []int{1, 1, 2, 3, 0}[r.IntN(5)]
		}
		plan, err := tensor.PlanRepeat(in, times)
		if err != nil {
			panic(err) // valid by construction
		}
		return sbp.RepeatGrad(times, in), []tensor.Shape{plan.OutShape}
	}
}

// RandomReshape returns a target shape for a reshape of in: in's dims
// with neighbours merged, some dims split in two where they factor, a
// size-1 dim made here and there, and one size as -1 now and then (the
// random programs of package program draw theirs here too).
func RandomReshape(r *rand.Rand, in tensor.Shape) []int {
	var to []int
	for d := 0; d < len(in); d++ {
		n := in[d]
		for d+1 < len(in) && r.IntN(3) == 0 { // flatten with the next
			d++
			n *= in[d]
		}
		if f := 2 + r.IntN(2); n > f && n%f == 0 && r.IntN(2) == 0 { // split
			to = append(to, f, n/f)
		} else {
			to = append(to, n)
		}
		if r.IntN(6) == 0 {
			to = append(to, 1)
		}
	}
	if n, _ := in.NumElements(); n > 0 && len(to) > 0 && r.IntN(3) == 0 {
		to[r.IntN(len(to))] = -1
	}
	return to
}

// broadcastable returns a shape that broadcasts to out: some leading dims
// dropped, some dims set to 1.
func broadcastable(r *rand.Rand, out tensor.Shape) tensor.Shape {
	s := out[r.IntN(len(out)+1):].Clone()
	for d := range s {
		if r.IntN(3) == 0 {
			s[d] = 1
		}
	}
	return s
}

// randomValues draws small integers: -8..8 (0..16 for uint32), and 1..8
// for a divisor so no division is by zero.
func randomValues(r *rand.Rand, shape tensor.Shape, dt tensor.DType, divisor bool) []float64 {
	n, _ := shape.NumElements()
	v := make([]float64, n)
	for i := range v {
		switch {
		case divisor:
			v[i] = float64(1 + r.IntN(8))
		case dt == tensor.Uint32:
			v[i] = float64(r.IntN(17))
		default:
			v[i] = float64(r.IntN(17) - 8)
		}
	}
	return v
}

func fromValues(dt tensor.DType, shape tensor.Shape, v []float64) (tensor.Tensor, error) {
	switch dt {
	case tensor.Float32:
		return tensor.FromSlice(shape, convert[float32](v))
	case tensor.Int32:
		return tensor.FromSlice(shape, convert[int32](v))
	default:
		return tensor.FromSlice(shape, convert[uint32](v))
	}
}

func convert[T tensor.Elem](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}
