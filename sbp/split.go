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
	// One buffer holds every device's coordinate, range, shape and
	// strides, each in a part of its own (capped, so that an append to
	// one cannot write into the next): two allocations, not five a
	// device.
	r, mr := len(shape), p.MeshRank()
	per := mr + 4*r
	buf := make([]int, p.Size()*per)
	out := make([]Shard, p.Size())
	for i := range out {
		b := buf[i*per:]
		part := func(n int) []int {
			s := b[:n:n]
			b = b[n:]
			return s
		}
		sh := Shard{Position: i, Rank: p.ranks[i], Coord: part(mr), Lo: part(r), Hi: part(r), Shape: part(r), Stride: part(r)}
		p.coord(sh.Coord, i)
		sh.Partial = splitRange(shape, p, nd, sh.Coord, sh.Lo, sh.Hi)
		acc := 1 // contiguous strides, as tensor.ContiguousStrides
		for d := r - 1; d >= 0; d-- {
			sh.Shape[d] = sh.Hi[d] - sh.Lo[d]
			sh.Stride[d] = acc
			acc *= max(sh.Shape[d], 1)
		}
		out[i] = sh
	}
	return out, nil
}

// splitRange writes into lo and hi the logical index range of the shard
// that the device at mesh coordinate coord holds of a tensor of the
// shape laid out by nd (validated), as Shards says; it reports whether
// the shard is partial.
func splitRange(shape tensor.Shape, p Placement, nd NdSbp, coord, lo, hi []int) (partial bool) {
	clear(lo)
	copy(hi, shape)
	for m, s := range nd {
		switch s.Kind {
		case Split:
			a, b := partRange(hi[s.Axis]-lo[s.Axis], p.hierarchy[m], coord[m])
			lo[s.Axis], hi[s.Axis] = lo[s.Axis]+a, lo[s.Axis]+b
		case Partial:
			partial = true
		}
	}
	return partial
}

// Validate checks that nd lays a tensor of the logical shape on p: one SBP
// per mesh dim, split axes inside the shape, and at most one kind of
// partial (the value of (P(sum), P(max)) would depend on which is
// combined first).
func Validate(shape tensor.Shape, p Placement, nd NdSbp) error {
	if f := checkLayout(shape, p, nd); f != nil {
		return newError(f.kind, fmt.Sprintf("%v on %v of shape %v", nd, p, shape), f.format, f.args...)
	}
	return nil
}

// layoutFault is why a layout does not fit, not yet spelled: Validate
// spells it; a boxing that only asks whether a layout on its way fits
// (thousands a plan) never does.
type layoutFault struct {
	kind   error
	format string
	args   []any
}

// checkLayout is Validate's check: nil when nd lays out the shape on p.
func checkLayout(shape tensor.Shape, p Placement, nd NdSbp) *layoutFault {
	if p.Size() == 0 {
		return &layoutFault{ErrPlacement, "the placement has no devices", nil}
	}
	if len(nd) != p.MeshRank() {
		return &layoutFault{ErrSBP, "the mesh has %d dims (%v) but %d SBPs are given; give one per mesh dim", []any{p.MeshRank(), p.hierarchy, len(nd)}}
	}
	if _, err := shape.NumElements(); err != nil {
		return &layoutFault{ErrShape, "%v", []any{err}}
	}
	var partial SBP
	for m, s := range nd {
		switch s.Kind {
		case Split:
			if s.Axis >= len(shape) {
				return &layoutFault{ErrSBP, "mesh dim %d splits axis %d but the tensor has %d axes", []any{m, s.Axis, len(shape)}}
			}
		case Broadcast:
		case Partial:
			if partial.Kind == Partial && partial != s {
				return &layoutFault{ErrSBP, "mixes %v and %v; the partials of one tensor must combine with one op", []any{partial, s}}
			}
			if s.Op != tensor.Sum && s.Op != tensor.MaxAll && s.Op != tensor.MinAll {
				return &layoutFault{ErrSBP, "mesh dim %d has a partial with unknown op %v", []any{m, s.Op}}
			}
			partial = s
		default:
			return &layoutFault{ErrSBP, "mesh dim %d has an invalid SBP", []any{m}}
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
