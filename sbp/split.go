package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// BalancedSplit returns the sizes of k parts of n as OneFlow's
// BalancedSplitter cuts them: every part gets n/k and the first n mod k
// parts one more, so 20 over 6 is 4,4,3,3,3,3 and 2 over 3 is 1,1,0.
func BalancedSplit(n, k int) []int {
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = n / k
		if i < n%k {
			sizes[i]++
		}
	}
	return sizes
}

// partRange returns the half-open range [lo, hi) of part i when [0, n) is
// cut by BalancedSplit(n, k): lo = i·(n/k) + min(i, n mod k).
func partRange(n, k, i int) (lo, hi int) {
	q, r := n/k, n%k
	lo = i*q + min(i, r)
	hi = lo + q
	if i < r {
		hi++
	}
	return lo, hi
}

// Shard is what one device of a placement holds of a global tensor: the
// logical index range [Lo[d], Hi[d]) of every axis, as its own contiguous
// buffer of shape Hi-Lo. A partial shard (some mesh dim is P) covers its
// range with a value that combines with the other devices' to the
// logical one.
type Shard struct {
	Position int          // index of the device in the placement, row-major over the mesh
	Rank     int          // the device's process rank
	Coord    []int        // the device's mesh coordinate
	Lo, Hi   []int        // logical index range per axis
	Shape    tensor.Shape // physical shape: Hi[d] - Lo[d]
	Stride   []int        // the local buffer's strides: contiguous over Shape
	Partial  bool         // whether the value is partial
}

// Shards returns what every device holds of a tensor of the logical shape
// laid out on p by nd. Mesh dims apply in order, each to the range left by
// the ones before it (OneFlow's hierarchical split): with (S(0), S(0)) on a
// 2×2 mesh, mesh dim 0 halves axis 0 and mesh dim 1 halves each half.
func Shards(shape tensor.Shape, p Placement, nd NdSbp) ([]Shard, error) {
	if err := Validate(shape, p, nd); err != nil {
		return nil, err
	}
	out := make([]Shard, p.Size())
	for i := range out {
		sh := Shard{Position: i, Rank: p.Rank(i), Coord: p.Coord(i), Lo: make([]int, len(shape)), Hi: append([]int{}, shape...)}
		for m, s := range nd {
			switch s.Kind {
			case Split:
				lo, hi := partRange(sh.Hi[s.Axis]-sh.Lo[s.Axis], p.hierarchy[m], sh.Coord[m])
				sh.Lo[s.Axis], sh.Hi[s.Axis] = sh.Lo[s.Axis]+lo, sh.Lo[s.Axis]+hi
			case Partial:
				sh.Partial = true
			}
		}
		sh.Shape = make(tensor.Shape, len(shape))
		for d := range shape {
			sh.Shape[d] = sh.Hi[d] - sh.Lo[d]
		}
		sh.Stride = tensor.ContiguousStrides(sh.Shape)
		out[i] = sh
	}
	return out, nil
}

// Validate checks that nd lays a tensor of the logical shape on p: one SBP
// per mesh dim, split axes inside the shape, and at most one kind of
// partial (the value of (P(sum), P(max)) would depend on which is
// combined first).
func Validate(shape tensor.Shape, p Placement, nd NdSbp) error {
	op := func() string { return fmt.Sprintf("%v on %v of shape %v", nd, p, shape) } // spelled only for an error
	if p.Size() == 0 {
		return newError(ErrPlacement, op(), "the placement has no devices")
	}
	if len(nd) != p.MeshRank() {
		return newError(ErrSBP, op(), "the mesh has %d dims (%v) but %d SBPs are given; give one per mesh dim", p.MeshRank(), p.hierarchy, len(nd))
	}
	if _, err := shape.NumElements(); err != nil {
		return newError(ErrShape, op(), "%v", err)
	}
	var partial SBP
	for m, s := range nd {
		switch s.Kind {
		case Split:
			if s.Axis >= len(shape) {
				return newError(ErrSBP, op(), "mesh dim %d splits axis %d but the tensor has %d axes", m, s.Axis, len(shape))
			}
		case Broadcast:
		case Partial:
			if partial.Kind == Partial && partial != s {
				return newError(ErrSBP, op(), "mixes %v and %v; the partials of one tensor must combine with one op", partial, s)
			}
			if s.Op != tensor.Sum && s.Op != tensor.MaxAll && s.Op != tensor.MinAll {
				return newError(ErrSBP, op(), "mesh dim %d has a partial with unknown op %v", m, s.Op)
			}
			partial = s
		default:
			return newError(ErrSBP, op(), "mesh dim %d has an invalid SBP", m)
		}
	}
	return nil
}

// partialOf returns nd's partial SBP, if it has one.
func partialOf(nd NdSbp) (SBP, bool) {
	for _, s := range nd {
		if s.Kind == Partial {
			return s, true
		}
	}
	return SBP{}, false
}
