package planner

import (
	"math/rand/v2"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/sbpcheck"
	"github.com/stridelab/stridelab/tensor"
)

// randomView writes a view of x, of the shape given, for the random
// programs: a transpose (rank 2 or more), a permute by a random order, or
// a reshape (sbpcheck.RandomReshape: merged and split dims, size-1 dims,
// a -1), and returns the statement's right side and its shape. Inputs
// split at random over 1 to 5 devices and 2-D meshes make the splits
// uneven, so many reshapes box first.
func randomView(r *rand.Rand, x string, shape tensor.Shape) (string, tensor.Shape) {
	var op sbp.Op
	var stmt string
	switch k := r.IntN(3); {
	case k == 0 && len(shape) >= 2:
		op, stmt = sbp.Transpose(), "transpose "+x
	case k == 1 && len(shape) >= 1:
		perm := r.Perm(len(shape))
		op, stmt = sbp.Permute(perm), "permute "+x+" "+ints(perm)
	default:
		to := sbpcheck.RandomReshape(r, shape)
		if len(to) == 0 {
			to = []int{1}
		}
		op, stmt = sbp.Reshape(to), "reshape "+x+" "+ints(to)
	}
	out, err := op.OutShape([]tensor.Shape{shape})
	if err != nil {
		panic(err) // valid by construction
	}
	return stmt, out
}
