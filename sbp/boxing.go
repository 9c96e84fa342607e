package sbp

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Collective names how the devices of one mesh dim convert a tensor from
// one SBP to another.
type Collective string

const (
	// AllGather: S(i) -> B. Every device sends its shard to the others
	// and concatenates what it receives along axis i.
	AllGather Collective = "all-gather"
	// AllReduce: P -> B. Every device ends with the combination of all
	// partial values (counted as a reduce-scatter then an all-gather).
	AllReduce Collective = "all-reduce"
	// ReduceScatter: P -> S(i). Every device ends with its part of the
	// combination: it sends each other device that device's part.
	ReduceScatter Collective = "reduce-scatter"
	// AllToAll: S(i) -> S(j). Device r sends device q the piece of its
	// shard that lies in q's part along j.
	AllToAll Collective = "all-to-all"
	// LocalSlice: B -> S(i). Every device keeps its part; nothing moves.
	LocalSlice Collective = "local-slice"
	// LocalZero: B -> P. The first device of each group keeps the value,
	// the others hold the identity (0 for sum); nothing moves.
	LocalZero Collective = "local-zero"
	// LocalPad: S(i) -> P. Every device pads its shard with the identity
	// to the full extent of axis i; nothing moves.
	LocalPad Collective = "local-pad"
)

// Traffic is what one device holds and moves in a boxing step (or a
// whole boxing): its shard's shape before and after, and the bytes it
// sends to and receives from the other devices.
type Traffic struct {
	Rank      int          `json:"rank"`
	Coord     []int        `json:"coord"`
	Before    tensor.Shape `json:"before"`
	After     tensor.Shape `json:"after"`
	SendBytes int64        `json:"send_bytes"`
	RecvBytes int64        `json:"recv_bytes"`
}

// Step is one collective along one mesh dim: every group of devices that
// differ only in MeshDim runs it at once.
type Step struct {
	MeshDim    int        `json:"mesh_dim"`
	Collective Collective `json:"collective"`
	From       NdSbp      `json:"from"`
	To         NdSbp      `json:"to"`
	Ranks      []Traffic  `json:"ranks"`
}

// Boxing is the plan that converts a global tensor from one nd-SBP to
// another on the same placement: the steps in order, and per device the
// shard shapes at either end and the total bytes sent and received.
type Boxing struct {
	Shape      tensor.Shape `json:"shape"`
	DType      string       `json:"dtype"`
	Placement  Placement    `json:"placement"`
	From       NdSbp        `json:"from"`
	To         NdSbp        `json:"to"`
	Collective string       `json:"collective"` // the steps' collectives joined by " + ", or "none"
	Steps      []Step       `json:"steps"`
	Ranks      []Traffic    `json:"ranks"`
	SendBytes  int64        `json:"send_bytes"` // Σ over devices
}

// PlanBoxing plans the conversion of a tensor of the logical shape and
// dtype on p from one nd-SBP to another.
//
// Each mesh dim converts on its own with one collective (two for
// P(x) -> P(y): an all-reduce, then a local zero), last mesh dim first. A
// step along mesh dim m is a 1-D conversion within each group only when no
// later mesh dim splits the same axis (its shards would then be pieces of
// pieces); when some step would need that, the plan gathers every mesh
// dim from the first that changes, last first, to B, and then slices or
// zeroes them to the target, first first.
func PlanBoxing(shape tensor.Shape, dt tensor.DType, p Placement, from, to NdSbp) (Boxing, error) {
	op := func() string { return fmt.Sprintf("boxing %v %v from %v to %v on %v", dt, shape, from, to, p) } // spelled only for an error
	if !dt.Valid() {
		return Boxing{}, newError(ErrShape, op(), "unknown dtype")
	}
	if err := Validate(shape, p, from); err != nil {
		return Boxing{}, newError(ErrSBP, op(), "from: %s", err.(*Error).Detail)
	}
	if err := Validate(shape, p, to); err != nil {
		return Boxing{}, newError(ErrSBP, op(), "to: %s", err.(*Error).Detail)
	}
	moves, ok := directMoves(shape, p, from, to)
	if !ok {
		moves = gatherThenScatter(from, to)
	}
	b := Boxing{Shape: shape.Clone(), DType: dt.String(), Placement: p, From: from.Clone(), To: to.Clone()}
	cur := from.Clone()
	for _, mv := range moves {
		next := cur.Clone()
		next[mv.dim] = mv.to
		st, err := planStep(shape, dt, p, cur, next, mv.dim)
		if err != nil {
			return Boxing{}, err
		}
		b.Steps = append(b.Steps, st)
		cur = next
	}
	before, _ := Shards(shape, p, from)
	after, _ := Shards(shape, p, to)
	names := []string{}
	for _, st := range b.Steps {
		names = append(names, string(st.Collective))
	}
	b.Collective = strings.Join(names, " + ")
	if len(names) == 0 {
		b.Collective = "none"
	}
	for i := range before {
		t := Traffic{Rank: p.Rank(i), Coord: p.Coord(i), Before: before[i].Shape, After: after[i].Shape}
		for _, st := range b.Steps {
			t.SendBytes += st.Ranks[i].SendBytes
			t.RecvBytes += st.Ranks[i].RecvBytes
		}
		b.SendBytes += t.SendBytes
		b.Ranks = append(b.Ranks, t)
	}
	return b, nil
}

// move changes the SBP of one mesh dim.
type move struct {
	dim int
	to  SBP
}

// moves1D returns the 1-D conversions from x to y: none, one collective,
// or for P(a) -> P(b) an all-reduce to B and then a local zero.
func moves1D(dim int, x, y SBP) []move {
	switch {
	case x == y:
		return nil
	case x.Kind == Partial && y.Kind == Partial:
		return []move{{dim, B}, {dim, y}}
	}
	return []move{{dim, y}}
}

// directMoves converts each mesh dim straight to its target, last mesh
// dim first; ok is false when some step is not a 1-D conversion.
func directMoves(shape tensor.Shape, p Placement, from, to NdSbp) ([]move, bool) {
	var moves []move
	cur := from.Clone()
	for m := len(cur) - 1; m >= 0; m-- {
		for _, mv := range moves1D(m, cur[m], to[m]) {
			next := cur.Clone()
			next[m] = mv.to
			if !separable(cur, m, cur[m], mv.to) || Validate(shape, p, next) != nil {
				return nil, false
			}
			moves = append(moves, mv)
			cur = next
		}
	}
	return moves, true
}

// gatherThenScatter turns every mesh dim from the first that differs to
// B, last first, then to its target, first first: each step then has only
// B on the later mesh dims, so it is always a 1-D conversion.
func gatherThenScatter(from, to NdSbp) []move {
	first := 0
	for first < len(from) && from[first] == to[first] {
		first++
	}
	var moves []move
	for m := len(from) - 1; m >= first; m-- {
		moves = append(moves, moves1D(m, from[m], B)...)
	}
	for m := first; m < len(to); m++ {
		moves = append(moves, moves1D(m, B, to[m])...)
	}
	return moves
}

// separable reports whether changing mesh dim m of cur from x to y is a
// 1-D conversion within each group of devices along m: no later mesh dim
// may split the axis that x or y splits.
func separable(cur NdSbp, m int, x, y SBP) bool {
	for _, later := range cur[m+1:] {
		if later.Kind != Split {
			continue
		}
		if x.Kind == Split && x.Axis == later.Axis || y.Kind == Split && y.Axis == later.Axis {
			return false
		}
	}
	return true
}

// collectiveFor names the 1-D conversion x -> y.
func collectiveFor(x, y SBP) Collective {
	switch {
	case x.Kind == Split && y.Kind == Broadcast:
		return AllGather
	case x.Kind == Partial && y.Kind == Broadcast:
		return AllReduce
	case x.Kind == Partial && y.Kind == Split:
		return ReduceScatter
	case x.Kind == Split && y.Kind == Split:
		return AllToAll
	case x.Kind == Broadcast && y.Kind == Split:
		return LocalSlice
	case x.Kind == Broadcast && y.Kind == Partial:
		return LocalZero
	default: // Split -> Partial
		return LocalPad
	}
}

// planStep plans the change of mesh dim m from cur to next and counts
// every device's bytes. Within a group of k devices whose shards hold
// s_r elements before and t_r after (e bytes each):
//
//	all-gather      send s_r·(k-1)         recv Σ_{q≠r} s_q
//	all-reduce      send (s-p_r) + (k-1)·p_r = recv, p = BalancedSplit(s, k)
//	reduce-scatter  send s - t_r           recv (k-1)·t_r
//	all-to-all      send Σ_{q≠r} |s_r ∩ t_q|  recv Σ_{q≠r} |s_q ∩ t_r|
//	local-*         0
func planStep(shape tensor.Shape, dt tensor.DType, p Placement, cur, next NdSbp, m int) (Step, error) {
	before, err := Shards(shape, p, cur)
	if err != nil {
		return Step{}, err
	}
	after, err := Shards(shape, p, next)
	if err != nil {
		return Step{}, err
	}
	x, y := cur[m], next[m]
	st := Step{MeshDim: m, Collective: collectiveFor(x, y), From: cur, To: next, Ranks: make([]Traffic, p.Size())}
	e := int64(dt.Size())
	for i := range st.Ranks {
		st.Ranks[i] = Traffic{Rank: p.Rank(i), Coord: p.Coord(i), Before: before[i].Shape, After: after[i].Shape}
	}
	for _, g := range p.Groups(m) {
		k := int64(len(g))
		for ri, r := range g {
			s, t := elements(before[r]), elements(after[r])
			var send, recv int64
			switch st.Collective {
			case AllGather:
				send = s * (k - 1)
				for _, q := range g {
					if q != r {
						recv += elements(before[q])
					}
				}
			case AllReduce:
				part := int64(BalancedSplit(int(s), int(k))[ri])
				send = s - part + (k-1)*part
				recv = send
			case ReduceScatter:
				send, recv = s-t, (k-1)*t
			case AllToAll:
				for _, q := range g {
					if q != r {
						send += overlap(before[r], after[q])
						recv += overlap(before[q], after[r])
					}
				}
			}
			st.Ranks[r].SendBytes, st.Ranks[r].RecvBytes = send*e, recv*e
		}
	}
	return st, nil
}

// elements counts a shard's elements (its shape was validated by Shards).
func elements(sh Shard) int64 {
	n, _ := sh.Shape.NumElements()
	return int64(n)
}

// overlap counts the elements two shards' logical ranges share.
func overlap(a, b Shard) int64 {
	n := int64(1)
	for d := range a.Lo {
		lo, hi := max(a.Lo[d], b.Lo[d]), min(a.Hi[d], b.Hi[d])
		if hi <= lo {
			return 0
		}
		n *= int64(hi - lo)
	}
	return n
}
