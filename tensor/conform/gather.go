package conform

import (
	"fmt"
	"math"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// idsOf returns an int32 tensor of shape holding v (the suite's own ids
// are valid by construction).
func idsOf(shape tensor.Shape, v ...int32) tensor.Tensor {
	return must(tensor.FromSlice(shape, v))
}

// spreadIds returns n ids that name rows −2 … rows+1 of a table from row
// lo on, (i·step + 3) mod (rows + 4) − 2 + lo with step the first odd
// number from 7 prime to rows + 4: every value once in each rows + 4
// ids, so some fall before and past the rows held, a row is named again
// once n passes rows + 4, and some are named by none while n is smaller.
func spreadIds(n, lo, rows int) tensor.Tensor {
	m, step := rows+4, 7
	for gcd(step, m) != 1 {
		step += 2
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32((i*step+3)%m - 2 + lo)
	}
	return idsOf(tensor.Shape{n}, v...)
}

// gcd is the greatest common divisor of a and b (Euclid's algorithm).
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// gatherCases looks up rows with Gather and sums them back with
// ScatterAdd. Gather: every dtype on a contiguous table, ids of rank 0,
// 1 and 2, contiguous and strided (permuted, reversed), naming rows
// outside the table (before it, past it, the int32 extremes); tables that
// are views (transposed, a row shard with lo > 0, expanded rows, a
// permuted rank-3 table whose row dims do not merge, a rank-1 table);
// empty ids, a table of no rows and one of empty rows. ScatterAdd:
// repeated ids, rows never named, ids outside the rows (before and
// past), lo > 0, values that are strided views with ids of rank 0 to 2,
// rows of one element, no ids and no rows. Then one lookup and two sums
// of n ids each, n the largest swept size (widths of 5 and 3, not
// multiples of 4; ids and outputs past a workgroup at n ≥ 257) on
// transposed tables and values: under a small binding limit these are
// gathered contiguous and bound in windows, their outputs in chunks.
// Each case costs a pipeline or reuses one (dtype and rank), so there
// are few of them.
func gatherCases(sizes []int) []Case {
	f := func(shape ...int) tensor.Tensor { return values(tensor.Float32, shape) }
	ids := idsOf(tensor.Shape{10}, 3, 0, 6, -1, 7, 3, 100, math.MinInt32, math.MaxInt32, 5)
	var cs []Case
	gather := func(name string, table, ids tensor.Tensor, lo int) {
		cs = append(cs, Case{Name: fmt.Sprintf("gather %v %s by ids %v from row %d", table.DType(), name, ids.Shape(), lo),
			Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Gather(table, ids, lo) }})
	}
	scatter := func(name string, src, ids tensor.Tensor, lo, rows int) {
		cs = append(cs, Case{Name: fmt.Sprintf("scatter-add %s by ids %v into rows %d … %d", name, ids.Shape(), lo, lo+rows-1), Tol: sumTol,
			Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.ScatterAdd(src, ids, lo, rows) }})
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
		gather("contiguous [7,5]", values(dt, tensor.Shape{7, 5}), ids, 0)
	}
	grid := idsOf(tensor.Shape{4, 3}, 0, 6, 2, 9, 1, 1, 3, -4, 5, 4, 0, 8)
	gather("transposed [5,7]ᵀ", must(f(5, 7).Permute([]int{1, 0})), must(grid.Permute([]int{1, 0})), 0)
	gather("rows 3…6 of [10,6]", must(f(10, 6).Narrow(0, 3, 7)), must(grid.Slice(tensor.Stepped(-1), tensor.Stepped(-2))), 3)
	gather("expanded [1,6]→[8,6]", must(values(tensor.Int32, tensor.Shape{1, 6}).Expand([]int{8, 6})), ids, 2)
	gather("permuted [4,3,5]→[3,4,5]", must(values(tensor.Uint32, tensor.Shape{4, 3, 5}).Permute([]int{1, 0, 2})), grid, 1)
	gather("[9]", f(9), ids, 0)
	gather("contiguous [7,5]", f(7, 5), idsOf(tensor.Shape{}, 2), 0)
	gather("contiguous [7,5]", f(7, 5), idsOf(tensor.Shape{2, 0}), 0)
	gather("of no rows [0,4]", f(0, 4), ids, 0)
	gather("of empty rows [5,0]", f(5, 0), ids, 0)
	gather("contiguous [7,5] (float32 ids: an error)", f(7, 5), f(3), 0)

	rep := idsOf(tensor.Shape{9}, 2, 0, 2, 5, -1, 2, 9, 0, 3)
	scatter("[9,5]", f(9, 5), rep, 0, 7)
	scatter("[9,5]", f(9, 5), rep, 2, 4)
	scatter("permuted [5,3,3]→[3,3,5]", must(f(5, 3, 3).Permute([]int{1, 2, 0})), must(idsOf(tensor.Shape{3, 3}, 1, 4, 1, 0, 6, 3, 3, 1, 7).Permute([]int{1, 0})), 1, 6)
	scatter("[5]", f(5), idsOf(tensor.Shape{}, 4), 3, 3)
	scatter("[11] (rows of one element)", must(f(11).Slice(tensor.Stepped(-1))), spreadIds(11, 0, 6), 0, 6)
	scatter("[0,3]", f(0, 3), idsOf(tensor.Shape{0}), 0, 4)
	scatter("[9,5]", f(9, 5), rep, 0, 0)
	scatter("int32 [9,5] (an error)", values(tensor.Int32, tensor.Shape{9, 5}), rep, 0, 7)

	if n := slices.Max(append([]int{0}, sizes...)); n > 0 {
		table := must(f(5, n/2+3).Permute([]int{1, 0}))
		gather(fmt.Sprintf("transposed [5,%d]ᵀ", n/2+3), table, spreadIds(n, 1, n/2+3), 1)
		scatter(fmt.Sprintf("[%d,3]", n), f(n, 3), spreadIds(n, 0, 37), 0, 37)
		scatter(fmt.Sprintf("transposed [3,%d]ᵀ", n), must(f(3, n).Permute([]int{1, 0})), spreadIds(n, 2, 2*n+1), 2, 2*n+1)
	}
	return cs
}
