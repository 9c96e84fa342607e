package tensor

import "fmt"

// Permute returns the view whose dim d is l's dim perm[d]:
//
//	shape'[d] = shape[perm[d]], stride'[d] = stride[perm[d]]
//
// perm must list every dim of l exactly once; negative entries count from
// the end as in NumPy.
func (l Layout) Permute(perm []int) (Layout, error) {
	op := fmt.Sprintf("permute %v by %v", l.shape, perm)
	n := len(l.shape)
	if len(perm) != n {
		return Layout{}, newError(ErrShape, op, "the permutation has %d entries for %d dims", len(perm), n)
	}
	seen := make([]bool, n)
	shape := make(Shape, n)
	stride := make([]int, n)
	for d, p := range perm {
		if p < -n || p >= n {
			return Layout{}, newError(ErrIndex, op, "entry %d is %d, outside [-%d, %d)", d, p, n, n)
		}
		if p < 0 {
			p += n
		}
		if seen[p] {
			return Layout{}, newError(ErrShape, op, "dim %d appears twice", p)
		}
		seen[p] = true
		shape[d], stride[d] = l.shape[p], l.stride[p]
	}
	return Layout{shape: shape, stride: stride, base: l.base}, nil
}
