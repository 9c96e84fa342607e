package tensor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// The kernel conformance checks: each kernel on each layout kind and size,
// against references computed on the dense model by index arithmetic.

func modelRepeat(d dense, times []int) dense {
	lead := len(times) - len(d.shape)
	out := make(Shape, len(times))
	for i, t := range times {
		s := 1
		if i >= lead {
			s = d.shape[i-lead]
		}
		out[i] = s * t
	}
	return buildDense(out, func(idx []int) float64 {
		src := make([]int, len(d.shape))
		for i := range src {
			src[i] = idx[i+lead] % d.shape[i]
		}
		return d.at(src)
	})
}

func modelBinary(op BinaryOp, dt DType, a, b dense) (dense, bool) {
	out, err := BroadcastShapes(a.shape, b.shape)
	if err != nil {
		return dense{}, false
	}
	ea, _ := modelExpand(a, out)
	eb, _ := modelExpand(b, out)
	return buildDense(out, func(idx []int) float64 {
		x, y := ea.at(idx), eb.at(idx)
		switch op {
		case Add:
			return x + y
		case Sub:
			return x - y
		case Mul:
			return x * y
		case Div:
			if dt != Float32 {
				if y == 0 {
					return x
				}
				return math.Trunc(x / y)
			}
			return float64(float32(x) / float32(y))
		case Max:
			return math.Max(x, y)
		case Eq:
			if x == y {
				return 1
			}
			return 0
		}
		return math.Min(x, y)
	}), true
}

// modelUnary applies op to every value of d, in float64 rounded to
// float32 (the arange values are whole numbers, exact in every dtype).
func modelUnary(op UnaryOp, d dense) dense {
	return buildDense(d.shape, func(idx []int) float64 {
		x := d.at(idx)
		switch op {
		case Exp:
			x = math.Exp(x)
		case Log:
			x = math.Log(x)
		case Neg:
			x = -x
		case Sqrt:
			x = math.Sqrt(x)
		case Rsqrt:
			x = 1 / math.Sqrt(x)
		case Tanh:
			x = math.Tanh(x)
		case Relu:
			x = math.Max(x, 0)
		case Step:
			x = map[bool]float64{true: 1, false: 0}[x > 0]
		case Erf:
			x = math.Erf(x)
		case Square:
			x *= x
		}
		return float64(float32(x))
	})
}

func modelReduce(op ReduceOp, d dense, to Shape) dense {
	lead := len(d.shape) - len(to)
	acc := buildDense(to, func([]int) float64 {
		switch op {
		case MaxAll:
			return math.Inf(-1)
		case MinAll:
			return math.Inf(1)
		}
		return 0
	})
	eachIndex(d.shape, func(idx []int) {
		k := 0
		for i, n := range to {
			v := 0
			if n != 1 {
				v = idx[i+lead]
			}
			k = k*n + v
		}
		v := d.at(idx)
		switch op {
		case Sum:
			acc.vals[k] += v
		case MaxAll:
			acc.vals[k] = math.Max(acc.vals[k], v)
		case MinAll:
			acc.vals[k] = math.Min(acc.vals[k], v)
		}
	})
	return acc
}

// closeTo compares a float32 result with a float64 reference: exact for
// integers and copies, relative 1e-6 of the magnitude for float sums.
func closeTo(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			return false
		}
	}
	return true
}

func snapshot(t Tensor) []float64 { return t.Float64s() }

func TestKernelsOnEveryLayout(t *testing.T) {
	be := CPU{}
	for _, dt := range []DType{Float32, Int32, Uint32} {
		for _, kind := range layoutKinds {
			for _, n := range sweepSizes {
				t.Run(fmt.Sprintf("%v/%s/%d", dt, kind.name, n), func(t *testing.T) {
					c := kind.build(t, dt, n)
					before := snapshot(c.view)

					for _, times := range [][]int{{2, 3}, {1, 1}, {3, 1, 2}, {2, 0}} {
						got, err := be.Repeat(c.view, times)
						if err != nil {
							t.Fatalf("%s repeat %v: %v", c.ops, times, err)
						}
						want := modelRepeat(c.model, times)
						if !got.Shape().Equal(want.shape) || !sameValues(got.Float64s(), want.vals) {
							t.Errorf("%s repeat %v = %v %v, want %v %v", c.ops, times, got.Shape(), head(got.Float64s()), want.shape, head(want.vals))
						}
					}

					other := newChecker(t, dt, Shape{1, 3}) // broadcasts along dim 0
					other.expand([]int{1, 3})
					for _, op := range BinaryOps() {
						for _, pair := range [][2]*checker{{c, other}, {other, c}, {c, c}} {
							got, err := be.Binary(op, pair[0].view, pair[1].view)
							want, ok := modelBinary(op, dt, pair[0].model, pair[1].model)
							if !ok {
								t.Fatalf("model cannot broadcast %v and %v", pair[0].model.shape, pair[1].model.shape)
							}
							if err != nil {
								t.Fatalf("%v %s, %s: %v", op, pair[0].ops, pair[1].ops, err)
							}
							gv := got.Float64s()
							if dt == Uint32 && op == Sub { // wraps modulo 2^32
								for i := range want.vals {
									want.vals[i] = float64(uint32(int64(want.vals[i])))
								}
							}
							if !got.Shape().Equal(want.shape) || !sameValues(gv, want.vals) {
								t.Errorf("%v(%s, %s) = %v, want %v", op, pair[0].ops, pair[1].ops, head(gv), head(want.vals))
							}
						}
					}

					for _, op := range UnaryOps() {
						got, err := be.Unary(op, c.view)
						if !op.Takes(dt) {
							if !errors.Is(err, ErrDType) {
								t.Errorf("%v %s: err = %v, want ErrDType", op, c.ops, err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("%v %s: %v", op, c.ops, err)
						}
						want := modelUnary(op, c.model)
						if !got.Shape().Equal(want.shape) || !sameValues(got.Float64s(), want.vals) {
							t.Errorf("%v(%s) = %v %v, want %v %v", op, c.ops, got.Shape(), head(got.Float64s()), want.shape, head(want.vals))
						}
					}

					for _, to := range []Shape{{1, 3}, {n, 1}, {1, 1}, {3}, {}, {n, 3}} {
						for _, op := range ReduceOps() {
							got, err := be.Reduce(op, c.view, to)
							_, shapeErr := ReducedAxes(c.model.shape, to)
							outN, _ := to.NumElements()
							if shapeErr != nil || (op != Sum && len(c.model.vals) == 0 && outN > 0) {
								if !errors.Is(err, ErrShape) {
									t.Errorf("%s reduce %v to %v: err = %v, want ErrShape", c.ops, op, to, err)
								}
								continue
							}
							if err != nil {
								t.Fatalf("%s reduce %v to %v: %v", c.ops, op, to, err)
							}
							want := modelReduce(op, c.model, to)
							if !got.Shape().Equal(to) || !closeTo(got.Float64s(), want.vals, 1e-6) {
								t.Errorf("%s reduce %v to %v = %v, want %v", c.ops, op, to, head(got.Float64s()), head(want.vals))
							}
						}
					}

					if after := snapshot(c.view); !sameValues(before, after) {
						t.Errorf("%s: a kernel changed its input", c.ops)
					}
				})
			}
		}
	}
}

func TestKernelErrors(t *testing.T) {
	be := CPU{}
	a, _ := Arange(Float32, Shape{2, 3})
	b, _ := Arange(Float32, Shape{4})
	i, _ := Arange(Int32, Shape{2, 3})
	cases := []struct {
		name string
		err  error
		kind error
	}{
		{"shape mismatch", second(be.Binary(Add, a, b)), ErrShape},
		{"dtype mismatch", second(be.Binary(Add, a, i)), ErrDType},
		{"bad reduce target", second(be.Reduce(Sum, a, Shape{3, 3})), ErrShape},
		{"max of nothing", second(be.Reduce(MaxAll, mustZeros(Shape{0, 3}), Shape{1, 3})), ErrShape},
		{"negative repeat", second(be.Repeat(a, []int{1, -2})), ErrShape},
		{"too few repeats", second(be.Repeat(a, []int{2})), ErrShape},
		{"empty tensor value", second(be.Materialize(Tensor{})), ErrShape},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.kind)
		}
	}
}

func second(_ Tensor, err error) error { return err }

// The unary ops at the edges of their domains are IEEE 754's answers
// (what Go's math returns): NaN below 0 for log, sqrt and rsqrt, −Inf
// for log(±0), ±Inf for rsqrt(±0); relu keeps NaN and −0, step gives 0
// for both; int32's lowest value negates to itself. Each op refuses the
// dtypes it does not take with ErrDType, and inputs are unchanged.
func TestUnaryValues(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	x := []float32{float32(-inf), -4, -1, float32(negZero), 0, 0.25, 1, 4, 20, float32(inf), float32(nan)}
	for _, c := range []struct {
		op   UnaryOp
		want []float64
	}{
		{Exp, []float64{0, math.Exp(-4), math.Exp(-1), 1, 1, math.Exp(0.25), math.E, math.Exp(4), math.Exp(20), inf, nan}},
		{Log, []float64{nan, nan, nan, -inf, -inf, math.Log(0.25), 0, math.Log(4), math.Log(20), inf, nan}},
		{Neg, []float64{inf, 4, 1, 0, negZero, -0.25, -1, -4, -20, -inf, nan}},
		{Sqrt, []float64{nan, nan, nan, negZero, 0, 0.5, 1, 2, math.Sqrt(20), inf, nan}},
		{Rsqrt, []float64{nan, nan, nan, -inf, inf, 2, 1, 0.5, 1 / math.Sqrt(20), 0, nan}},
		{Tanh, []float64{-1, math.Tanh(-4), math.Tanh(-1), negZero, 0, math.Tanh(0.25), math.Tanh(1), math.Tanh(4), 1, 1, nan}},
		{Relu, []float64{0, 0, 0, negZero, 0, 0.25, 1, 4, 20, inf, nan}},
		{Step, []float64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0}},
		{Erf, []float64{-1, math.Erf(-4), math.Erf(-1), negZero, 0, math.Erf(0.25), math.Erf(1), math.Erf(4), 1, 1, nan}},
		{Square, []float64{inf, 16, 1, 0, 0, 0.0625, 1, 16, 400, inf, nan}},
	} {
		in, _ := FromSlice(Shape{len(x)}, slices.Clone(x))
		got, err := CPU{}.Unary(c.op, in)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got.Float64s() {
			w := float64(float32(c.want[i]))
			if g != w && !(math.IsNaN(g) && math.IsNaN(w)) || math.Signbit(g) != math.Signbit(w) && !math.IsNaN(w) {
				t.Errorf("%v(%v) = %v, want %v", c.op, x[i], g, w)
			}
		}
		for k, v := range in.Float64s() {
			if v != float64(x[k]) && !math.IsNaN(v) {
				t.Errorf("%v changed its input at %d: %v", c.op, k, v)
			}
		}
	}
	i, _ := FromSlice(Shape{5}, []int32{math.MinInt32, -3, 0, 2, math.MaxInt32})
	for op, want := range map[UnaryOp][]float64{
		Neg:  {math.MinInt32, 3, 0, -2, -math.MaxInt32},
		Relu: {0, 0, 0, 2, math.MaxInt32},
		Step: {0, 0, 0, 1, 1},
	} {
		got, err := CPU{}.Unary(op, i)
		if err != nil || !sameValues(got.Float64s(), want) {
			t.Errorf("%v int32 = %v (%v), want %v", op, got.Float64s(), err, want)
		}
	}
	u, _ := FromSlice(Shape{3}, []uint32{0, 7, math.MaxUint32})
	for _, op := range UnaryOps() {
		_, err := CPU{}.Unary(op, u)
		if op.Takes(Uint32) != (err == nil) || err != nil && !errors.Is(err, ErrDType) {
			t.Errorf("%v uint32: err = %v; takes uint32: %v", op, err, op.Takes(Uint32))
		}
	}
	if _, err := (CPU{}).Unary(Exp, i); err == nil || err.Error() != "tensor: exp [5]: exp takes float32 tensors, not int32; convert it first" {
		t.Errorf("exp of int32: %v", err)
	}
	if _, err := (CPU{}).Unary(UnaryOp(99), u); !errors.Is(err, ErrParse) {
		t.Errorf("an unknown op: err = %v, want ErrParse", err)
	}
	if _, err := (CPU{}).Unary(Exp, Tensor{}); !errors.Is(err, ErrShape) {
		t.Errorf("an empty Tensor value: err = %v, want ErrShape", err)
	}
}

func mustZeros(s Shape) Tensor {
	t, err := Zeros(Float32, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestIntegerDivisionByZero(t *testing.T) {
	a, _ := FromSlice(Shape{3}, []int32{7, -7, math.MinInt32})
	b, _ := FromSlice(Shape{3}, []int32{0, 2, -1})
	got, err := CPU{}.Binary(Div, a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{7, -3, math.MinInt32} // x/0 = x; truncation; overflow wraps
	if !sameValues(got.Float64s(), want) {
		t.Errorf("int32 div = %v, want %v", got.Float64s(), want)
	}
}

// Eq is 1 where the operands are equal and 0 elsewhere, in their dtype:
// -0 equals 0, an infinity itself, and NaN nothing, itself included. Each
// row path of the kernel (both operands contiguous, one a scalar along the
// row, both strided) gives the same answer.
func TestEq(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	x := []float32{1, nan, 0, inf, -inf, 2.5}
	y := []float32{1, nan, float32(math.Copysign(0, -1)), inf, inf, 2.25}
	want := []float64{1, 0, 1, 1, 0, 0}
	a, _ := FromSlice(Shape{6}, x)
	b, _ := FromSlice(Shape{6}, y)
	got, err := CPU{}.Binary(Eq, a, b)
	if err != nil || got.DType() != Float32 || !sameValues(got.Float64s(), want) {
		t.Errorf("eq(%v, %v) = %v %v (err %v), want float32 %v", x, y, got.DType(), got.Float64s(), err, want)
	}
	col, _ := FromSlice(Shape{6, 1}, x)
	row, _ := FromSlice(Shape{1, 6}, y)
	sq, _ := FromSlice(Shape{6, 6}, append(append([]float32{}, x...), make([]float32, 30)...))
	tr, _ := sq.Permute([]int{1, 0}) // column 0 is x, every other column 0
	for _, c := range []struct {
		name string
		a, b Tensor
	}{
		{"[6,1] and [1,6]", col, row}, // a scalar along the row
		{"[1,6] and [6,1]", row, col},
		{"[6,6]ᵀ and [1,6]", tr, row}, // a strided row
	} {
		got, err := CPU{}.Binary(Eq, c.a, c.b)
		if err != nil {
			t.Fatalf("eq %s: %v", c.name, err)
		}
		av, bv := c.a.Float64s(), c.b.Float64s()
		an, bn := c.a.Shape(), c.b.Shape()
		for i := range 6 {
			for j := range 6 {
				p := av[min(i, an[0]-1)*an[1]+min(j, an[1]-1)]
				q := bv[min(i, bn[0]-1)*bn[1]+min(j, bn[1]-1)]
				w := 0.0
				if p == q {
					w = 1
				}
				if g := got.At(i, j); g != w {
					t.Errorf("eq %s at [%d %d]: eq(%v, %v) = %v, want %v", c.name, i, j, p, q, g, w)
				}
			}
		}
	}
	for _, dt := range []DType{Int32, Uint32} {
		a, _ := Arange(dt, Shape{2, 3})
		b, _ := FromSlice(Shape{3}, []int32{0, 4, 7})
		if dt == Uint32 {
			b, _ = FromSlice(Shape{3}, []uint32{0, 4, 7})
		}
		got, err := CPU{}.Binary(Eq, a, b)
		if want := []float64{1, 0, 0, 0, 1, 0}; err != nil || got.DType() != dt || !sameValues(got.Float64s(), want) {
			t.Errorf("%v eq(arange [2,3], [0 4 7]) = %v %v (err %v), want %v", dt, got.DType(), got.Float64s(), err, want)
		}
	}
}

func TestLargeKernelsParallel(t *testing.T) {
	// Big enough to run on several goroutines and to cut reduce blocks.
	x, _ := Arange(Float32, Shape{3, 5000})
	be := CPU{}
	s, err := be.Reduce(Sum, x, Shape{1, 5000})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range s.Float64s() {
		if want := float64(j + (5000 + j) + (10000 + j)); v != want {
			t.Fatalf("sum[%d] = %v, want %v", j, v, want)
		}
	}
	total, _ := be.Reduce(Sum, x, Shape{})
	if got, want := total.At(), 15000.0*14999/2; math.Abs(got-want) > 1e-6*want {
		t.Errorf("total = %v, want %v", got, want)
	}
	m, _ := be.Reduce(MaxAll, x, Shape{3, 1})
	if got := m.Float64s(); !sameValues(got, []float64{4999, 9999, 14999}) {
		t.Errorf("row max = %v", got)
	}
}

// TestLongRowsSplitAcrossCPUs runs binary and unary kernels on tensors
// that coalesce to one or two long rows (split by splitInner), large
// enough for parallelFor's goroutines and the binary kernel's streaming
// stores, and checks every element against the one-element definitions.
func TestLongRowsSplitAcrossCPUs(t *testing.T) {
	const inner = 5 * 131072 // splits into rows of 16,384
	if sh, st := splitInner([]int{2, inner}, [][]int{{inner, 1}, {0, 1}}); !slices.Equal(sh, []int{2, 40, 16384}) ||
		!slices.Equal(st[0], []int{inner, 16384, 1}) || !slices.Equal(st[1], []int{0, 16384, 1}) {
		t.Fatalf("splitInner([2 %d]) = %v %v, want [2 40 16384] with strides [%d 16384 1] and [0 16384 1]", inner, sh, st, inner)
	}
	if sh, _ := splitInner([]int{3 * 16411}, [][]int{{1}}); !slices.Equal(sh, []int{3 * 16411}) {
		t.Fatalf("splitInner of an odd row = %v, want it whole (no divisor of 1,024 or more)", sh)
	}
	a, _ := Arange(Float32, Shape{2, inner})
	b, _ := Arange(Float32, Shape{1, inner})
	av, bv := a.Float64s(), b.Float64s()
	for _, op := range []BinaryOp{Add, Div, Max} { // assembly (streamed) and Go loops
		got, err := CPU{}.Binary(op, a, b)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got.Float64s() {
			if want := float64(apply(op, float32(av[i]), float32(bv[i%inner]))); v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Fatalf("%v [2 %d] and [1 %d]: out[%d] = %v, want %v", op, inner, inner, i, v, want)
			}
		}
	}
	xs := make([]float32, 2*inner)
	for i := range xs {
		xs[i] = float32(i%2000)/50 - 20 // -20 to 20
	}
	scaled, _ := FromSlice(Shape{2, inner}, xs)
	e, err := CPU{}.Unary(Exp, scaled)
	if err != nil {
		t.Fatal(err)
	}
	sv := scaled.Float64s()
	for i, v := range e.Float64s() {
		if want := float64(unaryFloat(Exp, float32(sv[i]))); v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
			t.Fatalf("exp [2 %d]: out[%d] = %v, want %v", inner, i, v, want)
		}
	}
}

func TestReducePatterns(t *testing.T) {
	// Every alternating pattern up to rank 4, including "101" and "010"
	// shapes that take the streaming path, at sizes that run in parallel.
	for _, shape := range []Shape{{6, 7, 9}, {64, 8, 2100}, {3, 5, 7, 11}, {2100, 3, 170}} {
		x, _ := Arange(Float32, shape)
		model := buildDense(shape, func(idx []int) float64 { return x.At(idx...) })
		for mask := 0; mask < 1<<len(shape); mask++ {
			to := shape.Clone()
			for d := range to {
				if mask&(1<<d) != 0 {
					to[d] = 1
				}
			}
			for _, op := range ReduceOps() {
				got, err := CPU{}.Reduce(op, x, to)
				if err != nil {
					t.Fatalf("reduce %v %v to %v: %v", op, shape, to, err)
				}
				want := modelReduce(op, model, to)
				if !closeTo(got.Float64s(), want.vals, 1e-6) {
					t.Errorf("reduce %v %v to %v = %v, want %v", op, shape, to, head(got.Float64s()), head(want.vals))
				}
			}
		}
	}
}

func TestExpandAndRepeatBackward(t *testing.T) {
	be := CPU{}
	g, _ := Arange(Float32, Shape{2, 3, 4})
	dx, err := ExpandBackward(be, g, Shape{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := modelReduce(Sum, buildDense(Shape{2, 3, 4}, func(idx []int) float64 { return float64(idx[0]*12 + idx[1]*4 + idx[2]) }), Shape{3, 1})
	if !dx.Shape().Equal(Shape{3, 1}) || !sameValues(dx.Float64s(), want.vals) {
		t.Errorf("expand backward = %v %v, want %v", dx.Shape(), dx.Float64s(), want.vals)
	}
	if _, err := ExpandBackward(be, g, Shape{2, 1}); !errors.Is(err, ErrShape) {
		t.Errorf("expand backward with a wrong input shape: err = %v", err)
	}

	// repeat [3 1] by [2 3]: out [6 3]; in[i] collects out[i + 3k, j] for k<2, j<3.
	gr, _ := Arange(Float32, Shape{6, 3})
	dr, err := RepeatBackward(be, gr, Shape{3, 1}, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	var wantR []float64
	for i := 0; i < 3; i++ {
		s := 0.0
		for k := 0; k < 2; k++ {
			for j := 0; j < 3; j++ {
				s += float64((i+3*k)*3 + j)
			}
		}
		wantR = append(wantR, s)
	}
	if !dr.Shape().Equal(Shape{3, 1}) || !sameValues(dr.Float64s(), wantR) {
		t.Errorf("repeat backward = %v %v, want %v", dr.Shape(), dr.Float64s(), wantR)
	}
	// A permuted (non-viewable) grad takes the copy path and agrees.
	gp, _ := Arange(Float32, Shape{3, 6})
	gpt, _ := gp.Permute([]int{1, 0})
	d1, err := RepeatBackward(be, gpt, Shape{3, 1}, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	gm, _ := be.Materialize(gpt)
	d2, _ := RepeatBackward(be, gm, Shape{3, 1}, []int{2, 3})
	if !sameValues(d1.Float64s(), d2.Float64s()) {
		t.Errorf("repeat backward of a permuted grad %v != %v", d1.Float64s(), d2.Float64s())
	}
}
