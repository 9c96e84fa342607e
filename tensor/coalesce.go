package tensor

// Coalesce simplifies the iteration of several operands over one shape, as
// PyTorch's TensorIterator does before every kernel. strides holds one
// stride list per operand, each of len(shape). The rule:
//
//   - a dim of size 1 is dropped (its stride never matters);
//   - dims d and d+1 merge when, for every operand,
//     stride[d] == shape[d+1]·stride[d+1]; the merged dim has size
//     shape[d]·shape[d+1] and stride stride[d+1].
//
// An empty iteration (some size 0) becomes shape [0]; a single element
// becomes the scalar shape []. Offsets of every index are unchanged, so a
// kernel may iterate the result instead of the input.
func Coalesce(shape Shape, strides ...[]int) (Shape, [][]int) {
	outStrides := make([][]int, len(strides))
	if n, _ := shape.NumElements(); n == 0 {
		for k := range outStrides {
			outStrides[k] = []int{0}
		}
		return Shape{0}, outStrides
	}
	out := Shape{}
	for k := range outStrides {
		outStrides[k] = []int{}
	}
	for d, n := range shape {
		if n == 1 {
			continue
		}
		last := len(out) - 1
		merge := last >= 0
		for k := 0; merge && k < len(strides); k++ {
			merge = outStrides[k][last] == n*strides[k][d]
		}
		if merge {
			out[last] *= n
			for k := range strides {
				outStrides[k][last] = strides[k][d]
			}
			continue
		}
		out = append(out, n)
		for k := range strides {
			outStrides[k] = append(outStrides[k], strides[k][d])
		}
	}
	return out, outStrides
}
