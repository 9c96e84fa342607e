package sbpcheck

import (
	"math/rand/v2"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// GatherSignatureCases are SignatureCases of gather (a float32 table of 7
// rows, split unevenly over 2 to 5 devices, empty shards included, and
// int32 ids of every row, repeats among them, of rank 1 and 2) and of its
// backward, unsorted_segment_sum_like (dy of the ids' shape then the
// table's row, the ids, the table as like): every signature of both on
// 1 to 5 devices, 2×2 and 2×3, against the single device.
func GatherSignatureCases() []Case { return gatherCases([]tensor.Shape{{5}, {2, 3}}, false) }

// GatherKernelCases are GatherSignatureCases for a backend's kernels:
// the ids of rank 2 alone, and the backward's like whole (its layout
// never reaches a kernel), a third of the cases.
func GatherKernelCases() []Case { return gatherCases([]tensor.Shape{{2, 3}}, true) }

// gatherCases are the cases of ids of each shape, with the backward's
// like B and S(0), or B alone where likeWhole.
func gatherCases(idShapes []tensor.Shape, likeWhole bool) []Case {
	var cs []Case
	seed := uint64(500)
	for _, ids := range idShapes {
		seed++
		table := tensor.Shape{7, 3}
		idsOf := func(r *rand.Rand) []float64 {
			n, _ := ids.NumElements()
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(r.IntN(table[0]))
			}
			return v
		}
		cs = append(cs, signatureCasesOf(seed, sbp.Gather(), []tensor.Shape{table, ids},
			func(r *rand.Rand, i int) (tensor.DType, []float64) {
				if i == 1 {
					return tensor.Int32, idsOf(r)
				}
				return tensor.Float32, randomValues(r, table, tensor.Float32, false)
			}, nil)...)
		seed++
		dy := append(ids.Clone(), table[1:]...)
		shapes := []tensor.Shape{dy, ids, table}
		cs = append(cs, signatureCasesOf(seed, sbp.UnsortedSegmentSumLike(), shapes,
			func(r *rand.Rand, i int) (tensor.DType, []float64) {
				if i == 1 {
					return tensor.Int32, idsOf(r)
				}
				return tensor.Float32, randomValues(r, shapes[i], tensor.Float32, false)
			}, func(sg sbp.Signature) bool { return sg.In[2] == sbp.B || sg.In[2] == sbp.S(0) && !likeWhole })...)
	}
	return cs
}
