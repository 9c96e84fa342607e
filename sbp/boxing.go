package sbp

import (
	"fmt"
	"slices"

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
	// ElemBytes, when not 0, is the width the byte counts are of: a
	// 16-bit tensor simulated in DType (AtWidth); 0 means DType's.
	ElemBytes int `json:"elem_bytes,omitempty"`
}

// AtWidth is b for elements of n bytes: the same steps and shards, every
// byte count scaled by n / DType's size, and ElemBytes n. A bf16 tensor
// moves half of what its float32 simulation does; an engine runs b's
// steps in DType as before. Width 0 or DType's own gives b.
func (b Boxing) AtWidth(n int) Boxing {
	dt, err := tensor.ParseDType(b.DType)
	if err != nil || n <= 0 || n == dt.Size() {
		return b
	}
	scale := func(v int64) int64 { return v * int64(n) / int64(dt.Size()) }
	out := b
	out.ElemBytes, out.SendBytes = n, scale(b.SendBytes)
	out.Ranks = slices.Clone(b.Ranks)
	for i := range out.Ranks {
		out.Ranks[i].SendBytes, out.Ranks[i].RecvBytes = scale(b.Ranks[i].SendBytes), scale(b.Ranks[i].RecvBytes)
	}
	out.Steps = slices.Clone(b.Steps)
	for k := range out.Steps {
		out.Steps[k].Ranks = slices.Clone(b.Steps[k].Ranks)
		for i := range out.Steps[k].Ranks {
			r := &out.Steps[k].Ranks[i]
			r.SendBytes, r.RecvBytes = scale(r.SendBytes), scale(r.RecvBytes)
		}
	}
	return out
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
	// The planner plans thousands of boxings a program, so a boxing
	// takes a few allocations, not a few for every device of every
	// step: the layouts the tensor passes through (from, then each
	// move's) share one buffer with b.From and b.To; the shape, the
	// devices' coordinates and every layout's shard shapes (each
	// computed once: a step's After is the next step's Before) share
	// another; every step's traffic and the whole boxing's a third. The
	// shards' ranges, which only the steps' counts read, live on the
	// stack, two layouts at a time.
	mr, r, n := len(from), len(shape), p.Size()
	nds := make(NdSbp, (len(moves)+3)*mr)
	layout := func(k int) NdSbp { return nds[k*mr : (k+1)*mr : (k+1)*mr] }
	ints := make([]int, r+n*mr+(len(moves)+1)*n*r)
	b := Boxing{Shape: ints[:r:r], DType: dt.String(), Placement: p, From: layout(0), To: layout(1)}
	copy(b.Shape, shape)
	copy(b.From, from)
	copy(b.To, to)
	coords := ints[r : r+n*mr]
	for i := range n {
		p.coord(coords[i*mr:(i+1)*mr], i)
	}
	shapes := ints[r+n*mr:]
	var small [256]int // two layouts' ranges: 8 devices of a rank-8 tensor
	bounds := small[:]
	if 4*n*r > len(small) {
		bounds = make([]int, 4*n*r)
	}
	spansAt := func(k int, nd NdSbp) spans {
		half := bounds[k%2*2*n*r : (k%2+1)*2*n*r]
		return spansOf(shape, p, nd, coords, shapes[k*n*r:(k+1)*n*r], half)
	}
	// trafficAt is device i's Traffic, its shard's shape under the
	// layout k0 before and k1 after (capped slices), no bytes counted.
	trafficAt := func(i, k0, k1 int) Traffic {
		shapeAt := func(k int) tensor.Shape { return shapes[(k*n+i)*r : (k*n+i+1)*r : (k*n+i+1)*r] }
		return Traffic{Rank: p.Rank(i), Coord: coords[i*mr : (i+1)*mr : (i+1)*mr], Before: shapeAt(k0), After: shapeAt(k1)}
	}
	traffic := make([]Traffic, (len(moves)+1)*n)
	cur := layout(2)
	copy(cur, from)
	before := spansAt(0, cur)
	if len(moves) > 0 {
		b.Steps = make([]Step, len(moves))
	}
	var names [64]byte // the collectives' names, joined
	joined := names[:0]
	for k, mv := range moves {
		next := layout(k + 3)
		copy(next, cur)
		next[mv.dim] = mv.to
		if err := Validate(shape, p, next); err != nil {
			return Boxing{}, err
		}
		after := spansAt(k+1, next)
		ranks := traffic[k*n : (k+1)*n : (k+1)*n]
		for i := range ranks {
			ranks[i] = trafficAt(i, k, k+1)
		}
		b.Steps[k] = Step{MeshDim: mv.dim, Collective: collectiveFor(cur[mv.dim], next[mv.dim]), From: cur, To: next, Ranks: ranks}
		countStep(b.Steps[k], dt, p, before, after)
		if k > 0 {
			joined = append(joined, " + "...)
		}
		joined = append(joined, b.Steps[k].Collective...)
		cur, before = next, after
	}
	b.Collective = string(joined)
	if len(moves) == 0 {
		b.Collective = "none"
	}
	b.Ranks = traffic[len(moves)*n:]
	for i := range b.Ranks {
		t := trafficAt(i, 0, len(moves))
		for _, st := range b.Steps {
			t.SendBytes += st.Ranks[i].SendBytes
			t.RecvBytes += st.Ranks[i].RecvBytes
		}
		b.SendBytes += t.SendBytes
		b.Ranks[i] = t
	}
	return b, nil
}

// spans is what every device of a placement holds of a tensor under one
// layout, as Shards says: device i's shard's logical range [lo, hi), 2·r
// ints from 2·i·r in bounds (r the tensor's rank).
type spans struct {
	r      int
	bounds []int
}

// spansOf writes into bounds (2·n·r ints) the spans of a tensor of the
// shape laid out on p by nd (validated), and into shapes (n·r) its
// shards' shapes; coords holds every device's mesh coordinate in a row.
func spansOf(shape tensor.Shape, p Placement, nd NdSbp, coords, shapes, bounds []int) spans {
	r, mr := len(shape), len(nd)
	s := spans{r, bounds}
	for i := range p.Size() {
		lo, hi := s.lo(i), s.hi(i)
		splitRange(shape, p, nd, coords[i*mr:(i+1)*mr], lo, hi)
		for d := range r {
			shapes[i*r+d] = hi[d] - lo[d]
		}
	}
	return s
}

func (s spans) lo(i int) []int { return s.bounds[2*i*s.r : (2*i+1)*s.r] }
func (s spans) hi(i int) []int { return s.bounds[(2*i+1)*s.r : (2*i+2)*s.r] }

// elements counts device i's shard's elements (its layout was
// validated, so the count fits).
func (s spans) elements(i int) int64 {
	n := int64(1)
	for d, hi := range s.hi(i) {
		n *= int64(hi - s.lo(i)[d])
	}
	return n
}

// overlap counts the elements that device i's shard under s and device
// j's under t share.
func overlap(s spans, i int, t spans, j int) int64 {
	alo, ahi, blo, bhi := s.lo(i), s.hi(i), t.lo(j), t.hi(j)
	n := int64(1)
	for d := range alo {
		lo, hi := max(alo[d], blo[d]), min(ahi[d], bhi[d])
		if hi <= lo {
			return 0
		}
		n *= int64(hi - lo)
	}
	return n
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
	moves := make([]move, 0, 2*len(from))
	cur := from.Clone()
	for m := len(cur) - 1; m >= 0; m-- {
		for _, mv := range moves1D(m, cur[m], to[m]) {
			x := cur[m]
			cur[m] = mv.to
			if !separable(cur, m, x, mv.to) || checkLayout(shape, p, cur) != nil {
				return nil, false
			}
			moves = append(moves, mv)
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
	moves := make([]move, 0, 2*len(from)) // at most one move to B and one from it a mesh dim
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

// countStep counts every device's bytes in step st (its Ranks), which
// changes mesh dim st.MeshDim from layouts under which the devices hold
// before to those under which they hold after. Within a group of k
// devices whose shards hold s_r elements before and t_r after (e bytes
// each):
//
//	all-gather      send s_r·(k-1)         recv Σ_{q≠r} s_q
//	all-reduce      send (s-p_r) + (k-1)·p_r = recv, p = BalancedSplit(s, k)
//	reduce-scatter  send s - t_r           recv (k-1)·t_r
//	all-to-all      send Σ_{q≠r} |s_r ∩ t_q|  recv Σ_{q≠r} |s_q ∩ t_r|
//	local-*         0
func countStep(st Step, dt tensor.DType, p Placement, before, after spans) {
	m, e := st.MeshDim, int64(dt.Size())
	switch st.Collective {
	case LocalSlice, LocalZero, LocalPad:
		return // nothing moves
	}
	var small [16]int // a group's devices, on the stack for the meshes people draw
	g := small[:]
	if k := p.hierarchy[m]; k > len(small) {
		g = make([]int, k)
	}
	p.eachGroup(m, g[:p.hierarchy[m]], func(g []int) {
		k := len(g)
		for ri, r := range g {
			s, t := before.elements(r), after.elements(r)
			var send, recv int64
			switch st.Collective {
			case AllGather:
				send = s * int64(k-1)
				for _, q := range g {
					if q != r {
						recv += before.elements(q)
					}
				}
			case AllReduce:
				lo, hi := partRange(int(s), k, ri)
				part := int64(hi - lo)
				send = s - part + int64(k-1)*part
				recv = send
			case ReduceScatter:
				send, recv = s-t, int64(k-1)*t
			case AllToAll:
				for _, q := range g {
					if q != r {
						send += overlap(before, r, after, q)
						recv += overlap(before, q, after, r)
					}
				}
			}
			st.Ranks[r].SendBytes, st.Ranks[r].RecvBytes = send*e, recv*e
		}
	})
}
