package tensor

import (
	"errors"
	"slices"
	"testing"
)

// TestGatherLooksUpRows: rows of a table by ids of rank 0 to 2, on a
// transposed (strided) table and ids, every dtype; a shard of the table
// (lo > 0) gives zeros for the ids it does not hold, and the shards'
// outputs add up to the whole lookup.
func TestGatherLooksUpRows(t *testing.T) {
	table, _ := FromSlice(Shape{4, 3}, []float32{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32})
	ids, _ := FromSlice(Shape{2, 2}, []int32{3, 0, 1, 3})
	got, err := CPU{}.Gather(table, ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{30, 31, 32, 0, 1, 2, 10, 11, 12, 30, 31, 32}
	if !got.Shape().Equal(Shape{2, 2, 3}) || !slices.Equal(got.Float64s(), want) {
		t.Errorf("gather = %v %v, want [2 2 3] %v", got.Shape(), got.Float64s(), want)
	}
	// A scalar id gives one row; a strided table and ids read as views.
	one, _ := FromSlice(Shape{}, []int32{2})
	if g, _ := (CPU{}).Gather(table, one, 0); !slices.Equal(g.Float64s(), []float64{20, 21, 22}) {
		t.Errorf("gather by a scalar id = %v", g.Float64s())
	}
	tt, _ := table.Permute([]int{1, 0}) // [3 4]: row r is column r of table
	it, _ := ids.Permute([]int{1, 0})   // [[3 1] [0 3]]
	g, err := CPU{}.Gather(tt, it, 0)
	if err != nil {
		t.Fatal(err)
	}
	// tt's rows: 0 → [0 10 20 30], 1 → [1 11 21 31], 2 → [2 12 22 32];
	// id 3 is past its 3 rows, so its lookups are zeros
	if w := []float64{0, 0, 0, 0, 1, 11, 21, 31, 0, 10, 20, 30, 0, 0, 0, 0}; !slices.Equal(g.Float64s(), w) {
		t.Errorf("gather of views = %v, want %v", g.Float64s(), w)
	}
	// Shards of rows 0-1 and 2-3: each zeros the ids it does not hold,
	// and their sum is the whole lookup (a row-split table's P(sum)).
	top, _ := table.Narrow(0, 0, 2)
	bottom, _ := table.Narrow(0, 2, 4)
	a, _ := CPU{}.Gather(top, ids, 0)
	b, _ := CPU{}.Gather(bottom, ids, 2)
	if w := []float64{0, 0, 0, 0, 1, 2, 10, 11, 12, 0, 0, 0}; !slices.Equal(a.Float64s(), w) {
		t.Errorf("gather of rows 0-1 = %v, want %v", a.Float64s(), w)
	}
	sum, _ := CPU{}.Binary(Add, a, b)
	if !slices.Equal(sum.Float64s(), want) {
		t.Errorf("the shards' lookups add to %v, want %v", sum.Float64s(), want)
	}
	for _, dt := range []DType{Int32, Uint32} {
		ar, _ := Arange(dt, Shape{4, 3})
		g, err := CPU{}.Gather(ar, ids, 0)
		if err != nil || g.DType() != dt || g.At(0, 0, 2) != 11 {
			t.Errorf("%v: gather = %v %v, %v", dt, g.DType(), g.Float64s(), err)
		}
	}
}

// TestScatterAddSumsRowsByIds: each row sums the values whose id names
// it, in order; a repeated id sums; rows no id names are 0; ids outside
// the rows a shard holds add nothing there; and scatter-add is gather's
// adjoint: Σ gather(T, ids)·G = Σ T·scatter_add(G, ids).
func TestScatterAddSumsRowsByIds(t *testing.T) {
	src, _ := FromSlice(Shape{2, 2, 3}, []float32{1, 2, 3, 10, 20, 30, 100, 200, 300, 1000, 2000, 3000})
	ids, _ := FromSlice(Shape{2, 2}, []int32{3, 0, 1, 3})
	got, err := CPU{}.ScatterAdd(src, ids, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{10, 20, 30, 100, 200, 300, 0, 0, 0, 1001, 2002, 3003}
	if !got.Shape().Equal(Shape{4, 3}) || !slices.Equal(got.Float64s(), want) {
		t.Errorf("scatter-add = %v %v, want [4 3] %v", got.Shape(), got.Float64s(), want)
	}
	part, _ := CPU{}.ScatterAdd(src, ids, 2, 2)
	if w := []float64{0, 0, 0, 1001, 2002, 3003}; !slices.Equal(part.Float64s(), w) {
		t.Errorf("scatter-add into rows 2-3 = %v, want %v", part.Float64s(), w)
	}
	table, _ := FromSlice(Shape{4, 3}, []float32{1, -2, 3, 4, 5, -6, 7, 8, 9, -1, 2, 0.5})
	g, _ := CPU{}.Gather(table, ids, 0)
	lhs, rhs := 0.0, 0.0
	for i, v := range g.Float64s() {
		lhs += v * src.Float64s()[i]
	}
	for i, v := range table.Float64s() {
		rhs += v * got.Float64s()[i]
	}
	if lhs != rhs {
		t.Errorf("Σ gather·G = %v, Σ T·scatter_add(G) = %v", lhs, rhs)
	}
}

// TestGatherRefusals: float ids, a scalar table, values whose leading
// dims are not the ids' shape, and integer values to sum are each one
// error naming the shapes.
func TestGatherRefusals(t *testing.T) {
	table, _ := Arange(Float32, Shape{4, 3})
	fids, _ := Arange(Float32, Shape{2})
	ids, _ := FromSlice(Shape{2}, []int32{0, 1})
	scalar, _ := Arange(Float32, Shape{})
	for _, c := range []struct {
		err  error
		want error
	}{
		{second(CPU{}.Gather(table, fids, 0)), ErrDType},
		{second(CPU{}.Gather(scalar, ids, 0)), ErrShape},
		{second(CPU{}.Gather(table, ids, -1)), ErrIndex},
		{second(CPU{}.ScatterAdd(table, ids, 0, 4)), ErrShape},
		{second(CPU{}.ScatterAdd(table, fids, 0, 4)), ErrDType},
		{second(CPU{}.ScatterAdd(ids, ids, 0, 4)), ErrDType},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("err = %v, want %v", c.err, c.want)
		}
	}
}
