package tensor

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// dense is the stride-free model of a tensor: its values in row-major order.
// Every view op is defined on it by index arithmetic alone, so comparing a
// strided view with its dense model checks the strides (tinygrad's
// CheckingShapeTracker does the same with NumPy).
type dense struct {
	shape Shape
	vals  []float64
}

func buildDense(shape Shape, f func(idx []int) float64) dense {
	n, _ := shape.NumElements()
	d := dense{shape: shape.Clone(), vals: make([]float64, 0, n)}
	eachIndex(shape, func(idx []int) { d.vals = append(d.vals, f(idx)) })
	return d
}

func eachIndex(shape Shape, fn func(idx []int)) {
	n, _ := shape.NumElements()
	idx := make([]int, len(shape))
	for k := 0; k < n; k++ {
		fn(idx)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func (d dense) at(idx []int) float64 {
	k := 0
	for i, v := range idx {
		k = k*d.shape[i] + v
	}
	return d.vals[k]
}

// checker pairs a strided view with its dense model and the ops that made it.
type checker struct {
	t     testing.TB
	view  Tensor
	model dense
	ops   string
}

func newChecker(t testing.TB, dt DType, shape Shape) *checker {
	x, err := Arange(dt, shape)
	if err != nil {
		t.Fatalf("arange %v: %v", shape, err)
	}
	return &checker{t: t, view: x, model: buildDense(shape, func(idx []int) float64 {
		k := 0
		for i, v := range idx {
			k = k*shape[i] + v
		}
		return float64(k)
	}), ops: fmt.Sprintf("arange%v", shape)}
}

// check compares every index of the view with the model, and the CPU
// materialization with the model's values.
func (c *checker) check() {
	c.t.Helper()
	if !c.view.Shape().Equal(c.model.shape) {
		c.t.Fatalf("%s: view shape %v, model shape %v", c.ops, c.view.Shape(), c.model.shape)
	}
	bad := 0
	eachIndex(c.model.shape, func(idx []int) {
		if got, want := c.view.At(idx...), c.model.at(idx); got != want && bad < 3 {
			bad++
			c.t.Errorf("%s: at %v got %v, want %v (layout %v)", c.ops, idx, got, want, c.view.Layout())
		}
	})
	m, err := CPU{}.Materialize(c.view)
	if err != nil {
		c.t.Fatalf("%s: materialize: %v", c.ops, err)
	}
	if !m.Layout().IsContiguous() || !sameValues(m.Float64s(), c.model.vals) {
		c.t.Errorf("%s: materialize = %v, want %v", c.ops, head(m.Float64s()), head(c.model.vals))
	}
}

func head(v []float64) []float64 { return v[:min(len(v), 12)] }

func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// apply runs one view op on the view and the model; valid reports whether
// the model says the op is legal, and the view must agree.
func (c *checker) apply(name string, view func(Tensor) (Tensor, error), model func(dense) (dense, bool)) bool {
	c.t.Helper()
	v, err := view(c.view)
	m, ok := model(c.model)
	switch {
	case ok && errors.Is(err, ErrNeedsCopy):
		// A legal reshape of a view that has no strided form: copy, then view.
		mat, merr := CPU{}.Materialize(c.view)
		if merr != nil {
			c.t.Fatalf("%s then %s: %v", c.ops, name, merr)
		}
		if v, err = view(mat); err != nil {
			c.t.Fatalf("%s then %s on a contiguous copy: %v", c.ops, name, err)
		}
	case ok && err != nil:
		c.t.Fatalf("%s then %s: %v", c.ops, name, err)
	case !ok && err == nil:
		c.t.Fatalf("%s then %s: succeeded with %v, but the op is invalid", c.ops, name, v.Layout())
	case !ok:
		var te *Error
		if !errors.As(err, &te) {
			c.t.Fatalf("%s then %s: error %v is not a *tensor.Error", c.ops, name, err)
		}
		return false
	}
	c.view, c.model, c.ops = v, m, c.ops+"."+name
	c.check()
	return true
}

func (c *checker) expand(size []int) bool {
	return c.apply(fmt.Sprintf("expand%v", size), func(t Tensor) (Tensor, error) { return t.Expand(size) },
		func(d dense) (dense, bool) { return modelExpand(d, size) })
}

func (c *checker) permute(perm []int) bool {
	return c.apply(fmt.Sprintf("permute%v", perm), func(t Tensor) (Tensor, error) { return t.Permute(perm) },
		func(d dense) (dense, bool) { return modelPermute(d, perm) })
}

func (c *checker) reshape(shape []int) bool {
	return c.apply(fmt.Sprintf("reshape%v", shape), func(t Tensor) (Tensor, error) { return t.Reshape(shape) },
		func(d dense) (dense, bool) { return modelReshape(d, shape) })
}

func (c *checker) slice(idx ...Index) bool {
	return c.apply(fmt.Sprintf("slice[%s]", FormatIndices(idx)), func(t Tensor) (Tensor, error) { return t.Slice(idx...) },
		func(d dense) (dense, bool) { return modelSlice(d, idx) })
}

func modelExpand(d dense, size []int) (dense, bool) {
	lead := len(size) - len(d.shape)
	if lead < 0 {
		return dense{}, false
	}
	out := make(Shape, len(size))
	for i, n := range size {
		switch {
		case i < lead && n >= 0:
			out[i] = n
		case i < lead:
			return dense{}, false
		case n == -1 || n == d.shape[i-lead]:
			out[i] = d.shape[i-lead]
		case d.shape[i-lead] == 1 && n >= 0:
			out[i] = n
		default:
			return dense{}, false
		}
	}
	return buildDense(out, func(idx []int) float64 {
		src := make([]int, len(d.shape))
		for i := range src {
			if d.shape[i] != 1 {
				src[i] = idx[i+lead]
			}
		}
		return d.at(src)
	}), true
}

func modelPermute(d dense, perm []int) (dense, bool) {
	n := len(d.shape)
	if len(perm) != n {
		return dense{}, false
	}
	seen := map[int]bool{}
	out := make(Shape, n)
	p := make([]int, n)
	for i, v := range perm {
		if v < -n || v >= n {
			return dense{}, false
		}
		v = (v + n) % n
		if seen[v] {
			return dense{}, false
		}
		seen[v], p[i], out[i] = true, v, d.shape[v]
	}
	return buildDense(out, func(idx []int) float64 {
		src := make([]int, n)
		for i, v := range p {
			src[v] = idx[i]
		}
		return d.at(src)
	}), true
}

func modelReshape(d dense, shape []int) (dense, bool) {
	known, infer := 1, -1
	for i, n := range shape {
		switch {
		case n == -1 && infer < 0:
			infer = i
		case n < 0:
			return dense{}, false
		default:
			known *= n
		}
	}
	out := Shape(shape).Clone()
	if infer >= 0 {
		if known == 0 || len(d.vals)%known != 0 {
			return dense{}, false
		}
		out[infer] = len(d.vals) / known
	} else if known != len(d.vals) {
		return dense{}, false
	}
	return dense{shape: out, vals: d.vals}, true
}

// positions lists the positions an index selects in a dim of size n, by
// filtering 0..n-1 against Python's rules rather than computing a count.
func positions(ix Index, n int) []int {
	norm := func(v, lo, hi int) int {
		if v < 0 {
			v += n
		}
		return min(max(v, lo), hi)
	}
	var out []int
	if ix.step > 0 {
		start, stop := 0, n
		if ix.hasStart {
			start = norm(ix.start, 0, n)
		}
		if ix.hasStop {
			stop = norm(ix.stop, 0, n)
			if ix.inclusive {
				s := ix.stop
				if s < 0 {
					s += n
				}
				stop = min(max(s+1, 0), n)
			}
		}
		for p := 0; p < n; p++ {
			if p >= start && p < stop && (p-start)%ix.step == 0 {
				out = append(out, p)
			}
		}
		return out
	}
	start, stop := n-1, -1
	if ix.hasStart {
		start = norm(ix.start, -1, n-1)
	}
	if ix.hasStop {
		stop = norm(ix.stop, -1, n-1)
		if ix.inclusive {
			s := ix.stop
			if s < 0 {
				s += n
			}
			stop = min(max(s-1, -1), n-1)
		}
	}
	for p := n - 1; p >= 0; p-- {
		if p <= start && p > stop && (start-p)%(-ix.step) == 0 {
			out = append(out, p)
		}
	}
	return out
}

func modelSlice(d dense, idx []Index) (dense, bool) {
	type axis struct {
		src  int   // input dim, -1 for a new axis
		pos  []int // selected positions; one for a point
		keep bool
	}
	var axes []axis
	dim := 0
	for _, ix := range idx {
		if ix.kind == kindNewAxis {
			axes = append(axes, axis{src: -1, pos: []int{0}, keep: true})
			continue
		}
		if dim >= len(d.shape) {
			return dense{}, false
		}
		n := d.shape[dim]
		switch ix.kind {
		case kindAll:
			axes = append(axes, axis{src: dim, pos: positions(Stepped(1), n), keep: true})
		case kindPoint:
			p := ix.start
			if p < -n || p >= n {
				return dense{}, false
			}
			axes = append(axes, axis{src: dim, pos: []int{(p + n) % n}})
		case kindInterval:
			if ix.step == 0 {
				return dense{}, false
			}
			axes = append(axes, axis{src: dim, pos: positions(ix, n), keep: true})
		}
		dim++
	}
	for ; dim < len(d.shape); dim++ {
		axes = append(axes, axis{src: dim, pos: positions(Stepped(1), d.shape[dim]), keep: true})
	}
	var out Shape = Shape{}
	for _, a := range axes {
		if a.keep {
			out = append(out, len(a.pos))
		}
	}
	return buildDense(out, func(idx []int) float64 {
		src := make([]int, len(d.shape))
		k := 0
		for _, a := range axes {
			p := a.pos[0]
			if a.keep {
				p = a.pos[idx[k]]
				k++
			}
			if a.src >= 0 {
				src[a.src] = p
			}
		}
		return d.at(src)
	}), true
}

// sweepSizes hits workgroup tails and SIMD edges.
var sweepSizes = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 65, 257}

// layoutKinds builds each kind of input the ops must handle from a size n:
// contiguous, permuted, expanded and sliced (with a base offset).
var layoutKinds = []struct {
	name  string
	build func(t testing.TB, dt DType, n int) *checker
}{
	{"contiguous", func(t testing.TB, dt DType, n int) *checker { return newChecker(t, dt, Shape{n, 3}) }},
	{"permuted", func(t testing.TB, dt DType, n int) *checker {
		c := newChecker(t, dt, Shape{3, n})
		c.permute([]int{1, 0})
		return c
	}},
	{"expanded", func(t testing.TB, dt DType, n int) *checker {
		c := newChecker(t, dt, Shape{n, 1})
		c.expand([]int{n, 3})
		return c
	}},
	{"sliced", func(t testing.TB, dt DType, n int) *checker {
		c := newChecker(t, dt, Shape{2*n + 1, 5})
		c.slice(From(1, 2), Interval(1, 4, 1))
		return c
	}},
}

func TestViewHarness(t *testing.T) {
	for _, kind := range layoutKinds {
		for _, n := range sweepSizes {
			t.Run(fmt.Sprintf("%s/%d", kind.name, n), func(t *testing.T) {
				base := func() *checker { return kind.build(t, Float32, n) }
				base().check()
				base().expand([]int{2, n, 3})
				base().expand([]int{n, -1})
				base().expand([]int{n, 4}) // invalid: dim 1 is 3
				base().permute([]int{1, 0})
				base().permute([]int{0, 0}) // invalid
				base().reshape([]int{3, n})
				base().reshape([]int{-1})
				base().reshape([]int{n, 3, 1, 1})
				base().reshape([]int{n + 1, -1}) // invalid unless sizes divide
				base().slice(Interval(1, -1, 1))
				base().slice(Stepped(-1), Point(-1))
				base().slice(NewAxis(), From(-2, 1), NewAxis(), IntervalInclusive(0, 1, 1))
				base().slice(IntervalInclusive(-1, 0, -2))
				base().slice(Interval(0, -1, 3), From(2, 4))
				base().slice(Interval(-2, 0, -3), IntervalInclusive(0, 3, 2))
				base().slice(Point(n)) // invalid: out of range
				c := base()
				if c.slice(All(), NewAxis(), Point(1)) {
					c.expand([]int{2, n, 4})
					c.permute([]int{2, 0, 1})
					c.reshape([]int{-1})
				}
			})
		}
	}
}

func TestViewsShareTheBuffer(t *testing.T) {
	x, _ := Arange(Float32, Shape{4, 3})
	buf, _ := Buffer[float32](x)
	v, err := x.Slice(Interval(1, 3, 1), Point(2))
	if err != nil {
		t.Fatal(err)
	}
	buf[1*3+2] = 100 // write through the original buffer
	if got := v.At(0); got != 100 {
		t.Errorf("slice does not share the buffer: v[0] = %v, want 100", got)
	}
	vb, _ := Buffer[float32](v)
	if &vb[0] != &buf[0] {
		t.Error("slice copied the buffer")
	}
}
