package conform

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/tensor"
)

// view is a named input: a tensor seen through some layout.
type view struct {
	name string
	t    tensor.Tensor
}

// values returns a contiguous tensor of shape with small, varied values
// (negative ones too for the signed dtypes), so that sums stay exact in
// float32 and a wrong index shows up as a wrong value.
func values(dt tensor.DType, shape tensor.Shape) tensor.Tensor {
	n, _ := shape.NumElements()
	switch dt {
	case tensor.Int32:
		v := make([]int32, n)
		for i := range v {
			v[i] = int32((i*37+11)%101 - 50)
		}
		t, _ := tensor.FromSlice(shape, v)
		return t
	case tensor.Uint32:
		v := make([]uint32, n)
		for i := range v {
			v[i] = uint32((i*37 + 11) % 101)
		}
		t, _ := tensor.FromSlice(shape, v)
		return t
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*37+11)%101-50) / 4
	}
	t, _ := tensor.FromSlice(shape, v)
	return t
}

func must(t tensor.Tensor, err error) tensor.Tensor {
	if err != nil {
		panic(err) // the suite's own views are valid by construction
	}
	return t
}

// layouts returns views of n elements per swept dim: contiguous, permuted,
// expanded and sliced (with a negative step).
func layouts(dt tensor.DType, n int) []view {
	return []view{
		{fmt.Sprintf("contiguous [3,%d]", n), values(dt, tensor.Shape{3, n})},
		{fmt.Sprintf("permuted [%d,3]ᵀ", n), must(values(dt, tensor.Shape{n, 3}).Permute([]int{1, 0}))},
		{fmt.Sprintf("expanded [%d,1]→[%d,4]", n, n), must(values(dt, tensor.Shape{n, 1}).Expand([]int{n, 4}))},
		{fmt.Sprintf("expanded [1,%d]→[3,%d]", n, n), must(values(dt, tensor.Shape{1, n}).Expand([]int{3, n}))},
		{fmt.Sprintf("sliced [%d,5][1:%d, ::-2]", n+2, n+1), must(values(dt, tensor.Shape{n + 2, 5}).Slice(
			tensor.Interval(1, n+1, 1), tensor.Stepped(-2)))},
	}
}

// reduceTargets returns the targets of a rank-2 shape that keep or reduce
// each dim, and the rank-1 spelling when the leading dim is 1.
func reduceTargets(s tensor.Shape) []tensor.Shape {
	ts := []tensor.Shape{{1, s[1]}, {s[0], 1}, {1, 1}}
	if s[0] == 1 {
		ts = append(ts, tensor.Shape{s[1]})
	}
	return ts
}

// unaryCases applies the unary ops that take dt to views of n elements
// per swept dim: the first of them (exp on float32, which reads negatives
// and zeros too: NaN and ±Inf where an op's domain ends; neg on int32,
// relu on uint32) to every layout, the others to the contiguous one. An
// op only changes the function the gather kernel applies to what it
// reads, which the contiguous view runs as a vec4 or a scalar as n
// allows; the layouts are the gather's. (Every op on every layout made a
// pipeline of each: two thirds again of the browser's whole suite.)
func unaryCases(dt tensor.DType, n int) []Case {
	var ops []tensor.UnaryOp
	for _, op := range tensor.UnaryOps() {
		if op.Takes(dt) {
			ops = append(ops, op)
		}
	}
	var cs []Case
	for k, in := range layouts(dt, n) {
		for j, op := range ops {
			if j > 0 && k > 0 {
				break
			}
			cs = append(cs, Case{Name: fmt.Sprintf("%v %v %s", op, dt, in.name), Tol: unaryTol(op, dt),
				Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Unary(op, in.t) }})
		}
	}
	return cs
}

// specialCases applies every unary op that takes float32 to IEEE 754's
// special values and the edges of each op's domain and range: ±0, ±Inf,
// NaN, tanh's saturation, exp's overflow (and sizes that fill a vec4 and
// leave a tail); and the ops of integers to their extremes. Subnormals are
// left out: WGSL lets an implementation flush them to zero.
func specialCases() []Case {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	f, _ := tensor.FromSlice(tensor.Shape{19}, []float32{-inf, -100, -12.5, -1, float32(math.Copysign(0, -1)), 0, 1e-3,
		0.5, 1, 2, 9.99, 10.5, 20, 88, 89, 100, math.MaxFloat32, inf, nan})
	i, _ := tensor.FromSlice(tensor.Shape{7}, []int32{math.MinInt32, -2, -1, 0, 1, 2, math.MaxInt32})
	u, _ := tensor.FromSlice(tensor.Shape{5}, []uint32{0, 1, 2, 1 << 31, math.MaxUint32})
	var cs []Case
	// A NaN is not lost by max and min, elementwise or reduced (tensor's
	// definitions; WGSL leaves max and min of a NaN indeterminate), nor
	// compared equal by eq.
	g, _ := tensor.FromSlice(tensor.Shape{19}, []float32{nan, 1, -inf, nan, 0, inf, nan, nan, 3, -1, 2, 5, nan, 7, 1, -2, 0, 4, nan})
	for _, op := range []tensor.BinaryOp{tensor.Max, tensor.Min, tensor.Eq} {
		cs = append(cs, Case{Name: fmt.Sprintf("%v float32 special values", op), Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(op, f, g) }})
	}
	for _, op := range []tensor.ReduceOp{tensor.MaxAll, tensor.MinAll} {
		for _, to := range []tensor.Shape{{}, {1}} {
			for _, x := range []tensor.Tensor{f, g} {
				cs = append(cs, Case{Name: fmt.Sprintf("%v float32 special values to %v", op, to), Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Reduce(op, x, to) }})
			}
		}
	}
	for _, x := range []tensor.Tensor{f, i, u} {
		for _, op := range tensor.UnaryOps() {
			if !op.Takes(x.DType()) {
				continue
			}
			cs = append(cs, Case{Name: fmt.Sprintf("%v %v special values", op, x.DType()), Tol: unaryTol(op, x.DType()),
				Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Unary(op, x) }})
		}
	}
	return cs
}

func expandCases(dt tensor.DType, n int) []Case {
	x := values(dt, tensor.Shape{n, 1})
	s := values(dt, tensor.Shape{})
	return []Case{
		{Name: fmt.Sprintf("expand %v [%d,1] to [2,%d,3]", dt, n, n), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return tensor.Expand(be, x, []int{2, -1, 3})
		}},
		{Name: fmt.Sprintf("expand %v [] to [%d]", dt, n), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return tensor.Expand(be, s, []int{n})
		}},
	}
}

func repeatCases(dt tensor.DType, n int) []Case {
	x := values(dt, tensor.Shape{2, n})
	tr := must(values(dt, tensor.Shape{n, 3}).Permute([]int{1, 0}))
	sl := must(values(dt, tensor.Shape{n + 1, 4}).Slice(tensor.Stepped(-1), tensor.Interval(1, 3, 1)))
	var cs []Case
	for _, c := range []struct {
		name  string
		x     tensor.Tensor
		times []int
	}{
		{fmt.Sprintf("[%d]", n), values(dt, tensor.Shape{n}), []int{3}},
		{fmt.Sprintf("[2,%d]", n), x, []int{3, 1, 2}},
		{fmt.Sprintf("[2,%d]", n), x, []int{2, 0}},
		{fmt.Sprintf("[2,%d]", n), x, []int{1, 4}},
		{fmt.Sprintf("permuted [%d,3]ᵀ", n), tr, []int{2, 2}},
		{fmt.Sprintf("sliced [%d,4][::-1, 1:3]", n+1), sl, []int{2, 1, 3}},
	} {
		cs = append(cs, Case{Name: fmt.Sprintf("repeat %v %s by %v", dt, c.name, c.times), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Repeat(c.x, c.times)
		}})
	}
	return cs
}

func binaryCases(dt tensor.DType, n int) []Case {
	a := values(dt, tensor.Shape{n, 1})
	b := values(dt, tensor.Shape{1, 4})
	s := values(dt, tensor.Shape{})
	tr := must(values(dt, tensor.Shape{4, n}).Permute([]int{1, 0}))
	var cs []Case
	for _, op := range tensor.BinaryOps() {
		for _, pair := range []struct {
			name string
			x, y tensor.Tensor
		}{
			{fmt.Sprintf("[%d,1] and [1,4]", n), a, b},
			{fmt.Sprintf("[%d,4]ᵀ and []", n), tr, s},
			{fmt.Sprintf("[%d,1] and [%d,4]ᵀ", n, n), a, tr},
		} {
			cs = append(cs, Case{Name: fmt.Sprintf("%v %v %s", op, dt, pair.name), Tol: binaryTol(op, dt), Run: func(be tensor.Backend) (tensor.Tensor, error) {
				return be.Binary(op, pair.x, pair.y)
			}})
		}
	}
	return cs
}

// rankCases covers ranks 0 to 6: a tensor of that rank viewed contiguous,
// permuted (reversed dims), expanded (a dim of 1 broadcast) and sliced,
// materialized, repeated, added to a broadcast operand and reduced over
// alternating dims.
func rankCases(dt tensor.DType, rank int) []Case {
	dims := []int{3, 2, 4, 1, 3, 2}[:rank]
	base := values(dt, dims)
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = rank - 1 - i
	}
	views := []view{{fmt.Sprintf("rank %d contiguous %v", rank, dims), base},
		{fmt.Sprintf("rank %d permuted %v", rank, dims), must(base.Permute(perm))}}
	if rank > 0 {
		exp := append([]int{}, dims...)
		exp[rank-1] = 5
		one := append([]int{}, dims...)
		one[rank-1] = 1
		views = append(views, view{fmt.Sprintf("rank %d expanded to %v", rank, exp), must(values(dt, one).Expand(exp))})
		idx := make([]tensor.Index, rank)
		for d := range idx {
			idx[d] = tensor.All()
		}
		idx[0] = tensor.Stepped(-1)
		views = append(views, view{fmt.Sprintf("rank %d reversed dim 0 %v", rank, dims), must(base.Slice(idx...))})
	}
	var cs []Case
	for _, v := range views {
		shape := v.t.Shape()
		times := make([]int, rank)
		bshape := make(tensor.Shape, rank)
		to := make(tensor.Shape, rank)
		for d := range times {
			times[d] = 1 + d%2
			bshape[d], to[d] = 1, shape[d]
			if d%2 == 1 {
				bshape[d], to[d] = shape[d], 1
			}
		}
		b := values(dt, bshape)
		cs = append(cs,
			Case{Name: "materialize " + v.name, Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(v.t) }},
			Case{Name: fmt.Sprintf("repeat %s by %v", v.name, times), Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(v.t, times) }},
			Case{Name: fmt.Sprintf("add %s and %v", v.name, bshape), Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(tensor.Add, v.t, b) }},
		)
		if dt == tensor.Float32 {
			cs = append(cs, softmaxRankCases(v.name, v.t)...)
		}
		for _, op := range []tensor.UnaryOp{tensor.Exp, tensor.Relu} {
			if op.Takes(dt) {
				cs = append(cs, Case{Name: fmt.Sprintf("%v %s", op, v.name), Tol: unaryTol(op, dt),
					Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Unary(op, v.t) }})
			}
		}
		for _, op := range tensor.ReduceOps() {
			tol := 0.0
			if op == tensor.Sum && dt == tensor.Float32 {
				tol = sumTol
			}
			cs = append(cs, Case{Name: fmt.Sprintf("%v %s to %v", op, v.name, to), Tol: tol,
				Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Reduce(op, v.t, to) }})
		}
	}
	return cs
}
