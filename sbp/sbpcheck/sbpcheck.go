// Package sbpcheck is the property suite of the SBP core: random ops,
// shapes, SBPs and placements (1 to 8 devices, 2-D meshes, uneven splits
// and empty shards included), each run sharded on simulated devices,
// boxed to a random SBP and gathered, and compared with the op's
// single-device result. The sbp tests run it on the CPU backend and the
// shaders tests on WebGPU, so both backends are held to one list.
package sbpcheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Case is one random global computation.
type Case struct {
	Name string
	// Run runs it on be and returns an error describing any difference
	// from the single-device result.
	Run func(be tensor.Backend) error
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
	p      sbp.Placement
	in     []sbp.NdSbp
	to     sbp.NdSbp // the output is boxed to this before it is gathered
	values [][]float64
}

func newCase(r *rand.Rand) Case {
	s := spec{dtype: []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32}[r.IntN(3)], p: randomPlacement(r)}
	s.op, s.shapes = randomOp(r)
	for _, sh := range s.shapes {
		s.in = append(s.in, randomNd(r, sh, s.p))
		s.values = append(s.values, randomValues(r, sh, s.dtype, s.op.Name() == "div" && len(s.values) == 1))
	}
	if out, err := s.op.OutShape(s.shapes); err == nil {
		s.to = randomNd(r, out, s.p)
	}
	name := fmt.Sprintf("%v %v on %v with %v, boxed to %v", s.op, s.shapes, s.p, s.in, s.to)
	return Case{Name: name, Run: s.run}
}

func (s spec) run(be tensor.Backend) error {
	full := make([]tensor.Tensor, len(s.shapes))
	globals := make([]*sbp.Global, len(s.shapes))
	for i, sh := range s.shapes {
		t, err := fromValues(s.dtype, sh, s.values[i])
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
		if err := same(back, t); err != nil {
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
	boxed, _, err := y.Box(s.to)
	if err != nil {
		return fmt.Errorf("box %v to %v: %w", y.Sbp(), s.to, err)
	}
	got, err := boxed.Full()
	if err != nil {
		return fmt.Errorf("gather the output: %w", err)
	}
	if err := same(got, want); err != nil {
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

// same compares exactly: every value in the suite is a small integer, so
// sums and products are exact in float32 whatever their order.
func same(got, want tensor.Tensor) error {
	if !got.Shape().Equal(want.Shape()) || got.DType() != want.DType() {
		return fmt.Errorf("got %v %v, want %v %v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			return fmt.Errorf("element %d (row-major) of %v is %v, want %v", i, want.Shape(), g[i], w[i])
		}
	}
	return nil
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

func randomOp(r *rand.Rand) (sbp.Op, []tensor.Shape) {
	switch r.IntN(5) {
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
	default: // matmul
		m, k, n := r.IntN(6), r.IntN(6), r.IntN(6)
		return sbp.Matmul(), []tensor.Shape{{m, k}, {k, n}}
	}
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
