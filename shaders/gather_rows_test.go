package shaders

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/conform"
)

// Under a binding limit of 1 KiB and grids of 2 × 2 workgroups, a lookup
// of 600 ids in a table of 300 rows of 5 and their sum back into 300
// rows run as many dispatches (windows of the table's rows or of the
// positions, times chunks of the outputs) and agree with the CPU,
// contiguous and transposed (gathered contiguous first); the sum in
// windows adds in the same order as in one dispatch, so its bits are
// the same.
func TestGatherAndScatterAddInPieces(t *testing.T) {
	small := openOrSkip(t, Options{MaxBindingBytes: 1024, MaxWorkgroupsPerDimension: 2})
	v := make([]float32, 600*5)
	for i := range v {
		v[i] = 0.1 * float32(i%97) // sums that round, so their order shows
	}
	values, _ := tensor.FromSlice(tensor.Shape{600, 5}, v)
	id := make([]int32, 600)
	for i := range id {
		id[i] = int32((i*7)%307 - 2) // rows −2 … 304: before and past the 300 rows of a table from row 3
	}
	ids, _ := tensor.FromSlice(tensor.Shape{600}, id)
	table, _ := values.Narrow(0, 0, 300)
	transposed, _ := tensor.Arange(tensor.Float32, tensor.Shape{5, 300})
	transposed, _ = transposed.Permute([]int{1, 0})
	valuesT, _ := tensor.Arange(tensor.Float32, tensor.Shape{5, 600})
	valuesT, _ = valuesT.Permute([]int{1, 0})
	gather := func(table tensor.Tensor) func(tensor.Backend) (tensor.Tensor, error) {
		return func(be tensor.Backend) (tensor.Tensor, error) { return be.Gather(table, ids, 3) }
	}
	scatter := func(src tensor.Tensor) func(tensor.Backend) (tensor.Tensor, error) {
		return func(be tensor.Backend) (tensor.Tensor, error) { return be.ScatterAdd(src, ids, 3, 300) }
	}
	check(t, small, []conform.Case{
		{Name: "gather [300,5] by 600 ids", Run: gather(table)},
		{Name: "gather [5,300]ᵀ by 600 ids", Run: gather(transposed)},
		{Name: "scatter-add [600,5] by 600 ids", Run: scatter(values), Tol: tensor.Tolerance},
		{Name: "scatter-add [5,600]ᵀ by 600 ids", Run: scatter(valuesT), Tol: tensor.Tolerance},
	})
	for _, c := range []struct {
		name string
		call func(tensor.Backend) (tensor.Tensor, error)
	}{{"gather", gather(table)}, {"scatter-add", scatter(values)}} {
		k, err := NewBackend(small).Prepare(c.call)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := len(k.job.steps); n < 8 {
			t.Errorf("%s under a 1 KiB binding limit ran %d dispatches, want one per window and chunk", c.name, n)
		}
		k.Release()
	}
	whole := openOrSkip(t, Options{})
	a, err := NewBackend(small).ScatterAdd(values, ids, 3, 300)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(whole).ScatterAdd(values, ids, 3, 300)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tensor.RawBytes(a), tensor.RawBytes(b)) {
		t.Error("scatter-add in windows and chunks differs in its bits from scatter-add in one dispatch")
	}
}

// A row that does not fit one binding cannot be cut: the error names
// its size and the limit.
func TestGatherRowTooLargeIsAClearError(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 1024})
	table, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 300})
	ids, _ := tensor.FromSlice(tensor.Shape{1}, []int32{1})
	_, err := NewBackend(d).Gather(table, ids, 0)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a row of 300 elements") || !strings.Contains(err.Error(), "allows 1024") {
		t.Errorf("gather of rows of 1200 bytes under a 1024-byte binding limit: %v", err)
	}
	two, _ := tensor.FromSlice(tensor.Shape{2}, []int32{1, 0})
	_, err = NewBackend(d).ScatterAdd(table, two, 0, 4)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a row of 300 elements") {
		t.Errorf("scatter-add of rows of 1200 bytes under a 1024-byte binding limit: %v", err)
	}
	t.Log(err)
}
