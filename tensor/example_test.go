package tensor_test

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// Expand puts stride 0 on broadcast dims: the seed's first example.
func ExampleLayout_Expand() {
	in, _ := tensor.Contiguous(tensor.Shape{4, 1, 3, 5})
	out, _ := in.Expand([]int{2, 1, 4, 4, 3, 5})
	fmt.Println(in.Strides(), "->", out.Strides())
	// Output: [15 15 5 1] -> [0 0 15 0 5 1]
}

// PlanRepeat shows repeat as reshape + expand + reshape.
func ExamplePlanRepeat() {
	p, _ := tensor.PlanRepeat(tensor.Shape{3, 1, 5}, []int{2, 5, 3, 1})
	fmt.Println("reshape", p.InReshape, "expand", p.ExpandSize, "reshape", p.OutShape)
	// Output: reshape [1 3 1 5] expand [2 5 3 3 5] reshape [2 15 3 5]
}

// Trace writes one output index's offset as a sum of index·stride terms.
func ExampleLayout_Trace() {
	in, _ := tensor.Contiguous(tensor.Shape{3, 1})
	out, _ := in.Expand([]int{3, 4})
	tr, _ := out.Trace([]int{2, 3})
	fmt.Println(tr)
	// Output: [2 3] → 0 + 2·1 + 3·0 (broadcast) = 2
}

// Slice takes the four index kinds and shares the buffer.
func ExampleLayout_Slice() {
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{4, 5})
	idx, _ := tensor.ParseIndices("1..3:2, None, ::-2")
	v, _ := x.Slice(idx...)
	fmt.Println(v.Shape(), v.Layout().Strides(), v.Float64s())
	// Output: [2 1 3] [10 0 -2] [9 7 5 19 17 15]
}

// Reshape refuses, rather than copies, when no view exists.
func ExampleLayout_Reshape() {
	x, _ := tensor.Contiguous(tensor.Shape{2, 3})
	t, _ := x.Permute([]int{1, 0})
	_, err := t.Reshape([]int{6})
	fmt.Println(err)
	// Output: tensor: reshape [3 2] to [6]: strides [1 3] cannot be regrouped into [6] without copying
}

// MergeReduceAxes is the MXNet/TVM trick: runs of reduced and kept dims
// merge, so only alternating patterns remain.
func ExampleMergeReduceAxes() {
	in := tensor.Shape{2, 3, 4, 1, 5, 6}
	reduced, _ := tensor.ReducedAxes(in, tensor.Shape{1, 1, 4, 1, 5, 1})
	p := tensor.MergeReduceAxes(in, reduced)
	fmt.Println(tensor.AxisBits(reduced), "->", p.Shape, p.Bits())
	// Output: 110001 -> [6 20 6] 101
}

// Coalesce merges dims whose strides chain for every operand.
func ExampleCoalesce() {
	shape, strides := tensor.Coalesce(tensor.Shape{1024, 1, 4, 4096}, []int{4096, 4096, 0, 1}, []int{16384, 16384, 4096, 1})
	fmt.Println(shape, strides)
	// Output: [1024 4 4096] [[4096 0 1] [16384 4096 1]]
}

// Backends run the kernels; CPU is the reference.
func ExampleBackend() {
	a, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 1})
	b, _ := tensor.Arange(tensor.Float32, tensor.Shape{3})
	var be tensor.Backend = tensor.CPU{}
	sum, _ := be.Binary(tensor.Add, a, b)
	col, _ := be.Reduce(tensor.Sum, sum, tensor.Shape{1, 3})
	fmt.Println(sum.Float64s(), col.Float64s())
	// Output: [0 1 2 1 2 3] [1 3 5]
}
