package tensor

import (
	"fmt"
	"math"
)

// GatherOperands validates Gather(table, ids, lo) and returns the output
// shape, ids' shape then table's after its first dim: table a valid
// tensor of rank at least 1 (any dtype), ids a valid int32 tensor of any
// rank, lo ≥ 0 with lo + rows within int32 (the ids' range).
func GatherOperands(table, ids Tensor, lo int) (Shape, error) {
	name := fmt.Sprintf("gather rows of %v by ids %v from row %d", table.layout.shape, ids.layout.shape, lo)
	switch {
	case !table.Valid() || !ids.Valid():
		return nil, newError(ErrShape, name, "an operand is an empty Tensor value")
	case table.layout.Rank() == 0:
		return nil, newError(ErrShape, name, "a scalar table has no rows to look up")
	case ids.DType() != Int32:
		return nil, newError(ErrDType, name, "the ids are %v; they are int32 row numbers", ids.DType())
	case lo < 0 || lo+table.layout.shape[0] > math.MaxInt32:
		return nil, newError(ErrIndex, name, "the table's rows %d … %d are not int32 row numbers", lo, lo+table.layout.shape[0]-1)
	}
	out := append(ids.layout.shape.Clone(), table.layout.shape[1:]...)
	if _, err := out.NumElements(); err != nil {
		return nil, newError(ErrShape, name, "the output %v: %v", out, err)
	}
	return out, nil
}

// ScatterAddOperands validates ScatterAdd(src, ids, lo, rows) and returns
// the output shape, rows then src's dims after ids' rank: src a valid
// float32 tensor whose leading dims are ids' shape, ids int32, lo ≥ 0,
// rows ≥ 0, lo + rows within int32.
func ScatterAddOperands(src, ids Tensor, lo, rows int) (Shape, error) {
	name := fmt.Sprintf("scatter-add %v by ids %v into rows %d … %d", src.layout.shape, ids.layout.shape, lo, lo+rows-1)
	switch {
	case !src.Valid() || !ids.Valid():
		return nil, newError(ErrShape, name, "an operand is an empty Tensor value")
	case src.DType() != Float32:
		return nil, newError(ErrDType, name, "the values are %v; scatter-add sums float32 (a gradient)", src.DType())
	case ids.DType() != Int32:
		return nil, newError(ErrDType, name, "the ids are %v; they are int32 row numbers", ids.DType())
	case lo < 0 || rows < 0 || lo+rows > math.MaxInt32:
		return nil, newError(ErrIndex, name, "rows %d … %d are not int32 row numbers", lo, lo+rows-1)
	}
	k := ids.layout.Rank()
	if src.layout.Rank() < k || !Shape(src.layout.shape[:k]).Equal(ids.layout.shape) {
		return nil, newError(ErrShape, name, "the values' leading dims must be the ids' shape %v, one row of values per id", ids.layout.shape)
	}
	out := append(Shape{rows}, src.layout.shape[k:]...)
	if _, err := out.NumElements(); err != nil {
		return nil, newError(ErrShape, name, "the output %v: %v", out, err)
	}
	return out, nil
}

// Gather looks up the rows of table by ids: row ids[i] − lo of table for
// every id in lo … lo+rows−1, zeros for the rest (a table that is rows
// lo … of a larger one: a device's shard of a table split along its rows,
// whose partial outputs add up to the whole lookup).
func (CPU) Gather(table, ids Tensor, lo int) (Tensor, error) {
	shape, err := GatherOperands(table, ids, lo)
	if err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(table.DType(), shape, true, func() string { return fmt.Sprintf("gather %v", shape) })
	if err != nil {
		return Tensor{}, err
	}
	rows := table.layout.shape[0]
	width := 1
	for _, n := range table.layout.shape[1:] {
		width *= n
	}
	idv := idsOf(ids)
	t, err := CPU{}.Materialize(table)
	if err != nil {
		out.Release()
		return Tensor{}, err
	}
	defer t.Release()
	switch o := out.data.(type) {
	case []float32:
		gatherRowsInto(o, t.data.([]float32), idv, lo, rows, width)
	case []int32:
		gatherRowsInto(o, t.data.([]int32), idv, lo, rows, width)
	case []uint32:
		gatherRowsInto(o, t.data.([]uint32), idv, lo, rows, width)
	}
	return out, nil
}

// gatherRowsInto copies row ids[i]−lo of src (width elements a row, rows
// rows) to row i of out, leaving out's zeros where the id is not held.
func gatherRowsInto[T Elem](out, src []T, ids []int32, lo, rows, width int) {
	for i, id := range ids {
		if r := int(id) - lo; r >= 0 && r < rows {
			copy(out[i*width:(i+1)*width], src[r*width:(r+1)*width])
		}
	}
}

// ScatterAdd sums the rows of src into rows rows by ids, Gather's
// backward (torch's embedding_dense_backward, OneFlow's
// unsorted_segment_sum along axis 0):
//
//	out[r, c] = Σ over i with ids[i] = lo + r of src[i, c]
//
// in float64 in the order of i, rounded once; ids outside lo … lo+rows−1
// add nothing.
func (CPU) ScatterAdd(src, ids Tensor, lo, rows int) (Tensor, error) {
	shape, err := ScatterAddOperands(src, ids, lo, rows)
	if err != nil {
		return Tensor{}, err
	}
	out, err := newContiguous(Float32, shape, true, func() string { return fmt.Sprintf("scatter-add %v", shape) })
	if err != nil {
		return Tensor{}, err
	}
	width := 1
	for _, n := range shape[1:] {
		width *= n
	}
	s, err := CPU{}.Materialize(src)
	if err != nil {
		out.Release()
		return Tensor{}, err
	}
	defer s.Release()
	sv, o := s.data.([]float32), out.data.([]float32)
	acc := make([]float64, width)
	for r, list := range RowsOfIds(idsOf(ids), lo, rows) {
		if len(list) == 0 {
			continue
		}
		clear(acc)
		for _, i := range list {
			for c, v := range sv[int(i)*width : (int(i)+1)*width] {
				acc[c] += float64(v)
			}
		}
		for c, v := range acc {
			o[r*width+c] = float32(v)
		}
	}
	return out, nil
}

// RowsOfIds lists, for each row r of 0 … rows−1, the positions i (in
// order) whose id is lo + r: what each row of a scatter-add sums.
func RowsOfIds(ids []int32, lo, rows int) [][]int32 {
	out := make([][]int32, rows)
	for i, id := range ids {
		if r := int(id) - lo; r >= 0 && r < rows {
			out[r] = append(out[r], int32(i))
		}
	}
	return out
}

// idsOf is ids' values in row-major order.
func idsOf(ids Tensor) []int32 {
	v := make([]int32, 0, ids.NumElements())
	d := ids.data.([]int32)
	forEachOffset(ids.layout, func(off int) { v = append(v, d[off]) })
	return v
}
