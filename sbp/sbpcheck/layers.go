package sbpcheck

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// LayerSignatureCases are SignatureCases of the ops a transformer block
// adds to the language (transpose, permute, reshape, batched matmul):
// each on shapes that split unevenly over 2 to 5 devices and leave empty
// shards, on every placement of Placements.
func LayerSignatureCases() []Case {
	var cs []Case
	seed := uint64(300)
	add := func(op sbp.Op, dt tensor.DType, shapes ...tensor.Shape) {
		seed++
		cs = append(cs, SignatureCases(seed, op, shapes, dt)...)
	}
	add(sbp.Transpose(), tensor.Float32, tensor.Shape{7, 3})
	add(sbp.Transpose(), tensor.Int32, tensor.Shape{2, 7, 3})
	add(sbp.Transpose(), tensor.Float32, tensor.Shape{3, 0, 5})
	add(sbp.Permute([]int{2, 0, 1}), tensor.Float32, tensor.Shape{7, 3, 2})
	add(sbp.Permute([]int{0, 2, 1, 3}), tensor.Float32, tensor.Shape{2, 5, 3, 4})
	add(sbp.Permute([]int{}), tensor.Uint32, tensor.Shape{})
	// batched matmul: batch dims split evenly and unevenly, broadcast
	// (size 1 or absent), rank 3 and 4
	add(sbp.Matmul(), tensor.Float32, tensor.Shape{5, 3, 4}, tensor.Shape{5, 4, 2})
	add(sbp.Matmul(), tensor.Float32, tensor.Shape{3, 1, 2, 3}, tensor.Shape{2, 3, 4})
	add(sbp.Matmul(), tensor.Float32, tensor.Shape{3, 4}, tensor.Shape{6, 4, 2})
	add(sbp.Matmul(), tensor.Float32, tensor.Shape{2, 3, 2, 3}, tensor.Shape{2, 3, 3, 2})
	add(sbp.Matmul(), tensor.Int32, tensor.Shape{4, 2, 2}, tensor.Shape{1, 2, 3})
	// slices: a part of a dim split unevenly over 2 to 5 devices (its
	// split comes out P(sum)), the whole dim, counted from the end; their
	// gradients; and joins of two and three parts
	add(sbp.Slice(0, 2, 6), tensor.Float32, tensor.Shape{7, 3})
	add(sbp.Slice(-1, 1, 3), tensor.Int32, tensor.Shape{2, 7, 3})
	add(sbp.Slice(1, 0, 7), tensor.Float32, tensor.Shape{2, 7, 3})
	add(sbp.SliceGrad(tensor.Shape{7, 3}, 0, 2, 6), tensor.Float32, tensor.Shape{4, 3})
	add(sbp.SliceGrad(tensor.Shape{2, 7, 3}, 2, 1, 3), tensor.Float32, tensor.Shape{2, 7, 2})
	add(sbp.Concat(2, 0), tensor.Float32, tensor.Shape{3, 4}, tensor.Shape{5, 4})
	add(sbp.Concat(3, -1), tensor.Int32, tensor.Shape{2, 7, 1}, tensor.Shape{2, 7, 3}, tensor.Shape{2, 7, 2})
	cs = append(cs, ReshapeSignatureCases()...)
	return cs
}

// ReshapeSignatureCases are SignatureCases of reshapes: flattens and
// splits, groups that do both, size-1 dims made and dropped, an empty
// tensor, and shapes that split unevenly ([7 3] -> [21], [6 4] -> [3 2
// 4]), where only the placements that keep each device's run of elements
// its balanced part run a split signature as it is.
func ReshapeSignatureCases() []Case {
	var cs []Case
	seed := uint64(400)
	add := func(to []int, dt tensor.DType, in tensor.Shape) {
		seed++
		cs = append(cs, SignatureCases(seed, sbp.Reshape(to), []tensor.Shape{in}, dt)...)
	}
	add([]int{21}, tensor.Float32, tensor.Shape{7, 3})
	add([]int{24}, tensor.Int32, tensor.Shape{8, 3})
	add([]int{3, 2, 4}, tensor.Float32, tensor.Shape{6, 4})
	add([]int{12, 2}, tensor.Float32, tensor.Shape{6, 4})
	add([]int{3, 8}, tensor.Uint32, tensor.Shape{6, 4})
	add([]int{2, -1, 5}, tensor.Float32, tensor.Shape{2, 3, 4, 5})
	add([]int{1, 6, 1, 4}, tensor.Float32, tensor.Shape{6, 1, 4})
	add([]int{5, 7}, tensor.Float32, tensor.Shape{35})
	add([]int{0, 5}, tensor.Float32, tensor.Shape{5, 0})
	add([]int{1}, tensor.Float32, tensor.Shape{})
	return cs
}
