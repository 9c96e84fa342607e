package sbpcheck

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// SoftmaxSignatureCases are SignatureCases of softmax (float32, the one
// dtype it takes): along each dim of a [7 3] tensor (every other dim's
// split unevenly over 2 to 5 devices, empty shards included) and counted
// from the end, along the middle dim of a [2 7 3], and along the only
// dim of a [5], where B -> B is its one signature.
func SoftmaxSignatureCases() []Case {
	var cs []Case
	seed := uint64(300)
	for _, c := range []struct {
		axis  int
		shape tensor.Shape
	}{{0, tensor.Shape{7, 3}}, {1, tensor.Shape{7, 3}}, {-1, tensor.Shape{7, 3}}, {-2, tensor.Shape{7, 3}}, {1, tensor.Shape{2, 7, 3}}, {0, tensor.Shape{5}}} {
		seed++
		cs = append(cs, SignatureCases(seed, sbp.Softmax(c.axis), []tensor.Shape{c.shape}, tensor.Float32)...)
	}
	return cs
}
