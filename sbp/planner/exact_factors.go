package planner

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/minsum"
)

// srcVar is the variable (op) that decides the layout of name x, or -1
// when it is fixed: an op's output, the seed's through the result it
// seeds, an input's or a boxing's as given.
func (pl *planner) srcVar(x int, varOf []int) int {
	n := pl.g.Nodes[pl.def[x]]
	if n.Kind == graph.KindOnes {
		return pl.srcVar(pl.names[n.SeedOf], varOf)
	}
	return varOf[pl.def[x]]
}

// srcLayout is the layout of name x when its srcVar takes candidate k.
func (pl *planner) srcLayout(x, k int) int {
	d := pl.def[x]
	n := pl.g.Nodes[d]
	switch {
	case pl.decider[d] >= 0:
		return pl.cands[pl.decider[d]][k].out
	case n.Kind == graph.KindOnes:
		return pl.id(seedSbp(pl.nds[pl.srcLayout(pl.names[n.SeedOf], k)]))
	}
	return pl.id(n.Sbp)
}

// scope lists the variables of x's factor, sorted: its srcVar and its
// readers'.
func (pl *planner) scope(x int, varOf []int) []int {
	var s []int
	if v := pl.srcVar(x, varOf); v >= 0 {
		s = append(s, v)
	}
	for _, r := range pl.readers[x] {
		if v := varOf[r.node]; v >= 0 && !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	return s
}

// tensorFactor builds x's factor: its ops' candidates (those kept, where
// kept is not nil: kept[v][k'] is the candidate k' of var v stands for)
// grouped by what they mean to x (the layout the source lays out, the layouts a reader
// needs), and a func that fills, for every tuple of groups, the weight
// of copyPlan from x's layout to its readers' needs (the table is
// filled only once the elimination is known to fit its bounds).
func (pl *planner) tensorFactor(x int, scope, varOf, dom []int, kept [][]int) (*minsum.Factor, func() error) {
	src := pl.srcVar(x, varOf)
	f := &minsum.Factor{Vars: scope, Cls: make([][]int32, len(scope)), N: make([]int, len(scope))}
	reps := make([][]int, len(scope)) // per scope var: class → a candidate
	for s, v := range scope {
		f.Cls[s] = make([]int32, dom[v])
		seen := map[string]int32{}
		for k2 := range dom[v] {
			k := k2
			if kept != nil {
				k = kept[v][k2]
			}
			key := ""
			if v == src {
				key = fmt.Sprint("s", pl.srcLayout(x, k))
			}
			for _, r := range pl.readers[x] {
				if varOf[r.node] == v {
					key += fmt.Sprint(",", pl.needOf(r, k))
				}
			}
			g, ok := seen[key]
			if !ok {
				g = int32(len(reps[s]))
				seen[key] = g
				reps[s] = append(reps[s], k)
			}
			f.Cls[s][k2] = g
		}
		f.N[s] = len(reps[s])
	}
	return f, func() error { return pl.fillTensorFactor(f, x, src, reps, varOf) }
}

// fillTensorFactor fills the table of x's factor f: reps[s][c] is a
// candidate of f's scope var s in class c. An entry's value depends on
// x's layout and the set of layouts its readers need alone, so copyPlan
// is asked once per such set (a tensor of m readers has far fewer sets
// than entries). Each entry is a unit of work for pl.poll.
func (pl *planner) fillTensorFactor(f *minsum.Factor, x, src int, reps [][]int, varOf []int) error {
	scope := f.Vars
	// What class c of scope var s means to x: the layout it lays x out
	// in, where s is the source (else -1), and the layouts its reads
	// need.
	type part struct {
		src  int
		need []int
	}
	parts := make([][]part, len(scope))
	for s, v := range scope {
		for _, k := range reps[s] {
			p := part{src: -1}
			if v == src {
				p.src = pl.srcLayout(x, k)
			}
			for _, r := range pl.readers[x] {
				if varOf[r.node] == v {
					p.need = append(p.need, pl.needOf(r, k))
				}
			}
			parts[s] = append(parts[s], p)
		}
	}
	srcLay := -1
	if src < 0 {
		srcLay = pl.srcLayout(x, -1)
	}
	var fixed []int // the needs of x's readers that are not ops
	for _, r := range pl.readers[x] {
		if varOf[r.node] < 0 {
			fixed = append(fixed, pl.needOf(r, 0))
		}
	}
	// The bytes of boxing x between any two of the layouts it is in or
	// read in, asked of sbp once: cost[loc[a]][loc[b]], -1 where sbp
	// cannot plan it.
	loc := map[int]int{}
	var lays []int
	for _, l := range append([]int{srcLay}, fixed...) {
		if _, ok := loc[l]; !ok && l >= 0 {
			loc[l] = len(lays)
			lays = append(lays, l)
		}
	}
	for _, ps := range parts {
		for _, p := range ps {
			for _, l := range append([]int{p.src}, p.need...) {
				if _, ok := loc[l]; !ok && l >= 0 {
					loc[l] = len(lays)
					lays = append(lays, l)
				}
			}
		}
	}
	cost := make([][]int64, len(lays))
	for a, from := range lays {
		cost[a] = make([]int64, len(lays))
		for b, to := range lays {
			cost[a][b] = -1
			if c, ok := pl.edgeCost(x, from, to); ok && a != b {
				cost[a][b] = c
			}
		}
	}
	w := make([][]int64, len(lays)) // the arborescence's edges, rows reused
	for a := range w {
		w[a] = make([]int64, len(lays))
	}
	// tree is copyPlan's weight for x from layout lays[from] to the
	// distinct needs lays[ids] (from left out), on the matrix: the
	// cheapest tree's cost (treeCost) is copyPlan's bytes, whichever
	// tree copyPlan's ties pick.
	tree := func(from int, ids []int) int64 {
		k := len(ids)
		nodes := append([]int{from}, ids...)
		for a := range k + 1 {
			for b := range k + 1 {
				w[a][b] = -1
				if b != 0 {
					w[a][b] = cost[nodes[a]][nodes[b]]
				}
			}
		}
		bytes := treeCost(w[:k+1], k)
		if bytes < 0 {
			return minsum.Infinite
		}
		return weight(bytes, k)
	}
	size := 1
	for s := range scope {
		size *= f.N[s]
	}
	f.Tab = make([]int64, size)
	// From here on a set of layouts is a bitset over lays, words words
	// long: each class's needs, and the needs of x's readers that are not
	// ops.
	words := (len(lays) + 63) / 64
	bits := func(ls []int) []uint64 {
		m := make([]uint64, words)
		for _, l := range ls {
			m[loc[l]/64] |= 1 << (loc[l] % 64)
		}
		return m
	}
	masks := make([][][]uint64, len(parts))
	froms := make([][]int, len(parts))
	for s, ps := range parts {
		for _, p := range ps {
			masks[s] = append(masks[s], bits(p.need))
			from := -1
			if p.src >= 0 {
				from = loc[p.src]
			}
			froms[s] = append(froms[s], from)
		}
	}
	fixedMask := bits(fixed)
	if srcLay >= 0 {
		srcLay = loc[srcLay]
	}
	// memo: the source's index and the bitset of needs, as bytes → the
	// tree's weight.
	memo := map[string]int64{}
	var ids []int
	var key []byte
	// With fewer than 58 layouts (the common case) the memos are keyed
	// by the pair in one word (the source's index above the needs'
	// bits), not by its bytes.
	packed := len(lays) < 58
	pack := func(from int, set uint64) uint64 { return set | uint64(from+1)<<58 }
	small := map[uint64]int64{}
	entry := func(from int, set []uint64) int64 {
		set[from/64] &^= 1 << (from % 64)
		if packed {
			sk := pack(from, set[0])
			v, ok := small[sk]
			if !ok {
				ids = ids[:0]
				global, fits := uint64(0), lays[from] < 64
				for l := range lays {
					if set[0]>>l&1 == 1 {
						ids = append(ids, l)
						global |= 1 << lays[l]
						fits = fits && lays[l] < 64
					}
				}
				// Tensors of one shape box alike: a tree is worked out
				// once per planner (treeMemo), not once per factor.
				tk := treeKey{shape: int32(pl.shapeOf[x]), from: int32(lays[from]), set: global}
				if v, ok = pl.treeMemo[tk]; !ok || !fits {
					v = tree(from, ids)
					if fits {
						pl.treeMemo[tk] = v
					}
				}
				small[sk] = v
			}
			return v
		}
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(from))
		for _, m := range set {
			key = binary.LittleEndian.AppendUint64(key, m)
		}
		v, ok := memo[string(key)]
		if !ok {
			ids = ids[:0]
			for l := range lays {
				if set[l/64]>>(l%64)&1 == 1 {
					ids = append(ids, l)
				}
			}
			v = tree(from, ids)
			memo[string(key)] = v
		}
		return v
	}
	set := make([]uint64, words)
	if len(scope) == 0 {
		if err := pl.poll.Tick(1); err != nil {
			return err
		}
		copy(set, fixedMask)
		f.Tab[0] = entry(srcLay, set)
		return nil
	}
	// The table row by row (the classes of the last var): rows whose
	// other vars lay x out from the same layout and need the same set
	// are the same row, memoized by that pair (rowMemo), so that the
	// entry memo is asked once per distinct row and last class.
	last := len(scope) - 1
	nLast := f.N[last]
	rowMemo := map[string]int{} // → where in f.tab the row was first filled
	smallRows := map[uint64]int{}
	var rowKey []byte
	asg := make([]int, last) // the classes of the row's other vars, the last fastest
	pre := make([]uint64, words)
	for e := 0; e < len(f.Tab); e += nLast {
		if err := pl.poll.Tick(nLast); err != nil {
			return err
		}
		from := srcLay
		copy(pre, fixedMask)
		for s, c := range asg {
			if froms[s][c] >= 0 {
				from = froms[s][c]
			}
			for w, m := range masks[s][c] {
				pre[w] |= m
			}
		}
		var at int
		var ok bool
		if packed {
			at, ok = smallRows[pack(from, pre[0])]
		} else {
			rowKey = binary.LittleEndian.AppendUint32(rowKey[:0], uint32(from+1))
			for _, m := range pre {
				rowKey = binary.LittleEndian.AppendUint64(rowKey, m)
			}
			at, ok = rowMemo[string(rowKey)]
		}
		if ok {
			copy(f.Tab[e:e+nLast], f.Tab[at:at+nLast])
		} else {
			row := f.Tab[e : e+nLast]
			for c := range nLast {
				at := from
				if froms[last][c] >= 0 {
					at = froms[last][c]
				}
				for w, m := range masks[last][c] {
					set[w] = pre[w] | m
				}
				row[c] = entry(at, set)
			}
			if packed {
				smallRows[pack(from, pre[0])] = e
			} else {
				rowMemo[string(rowKey)] = e
			}
		}
		for s := len(asg) - 1; s >= 0; s-- {
			if asg[s]++; asg[s] < f.N[s] {
				break
			}
			asg[s] = 0
		}
	}
	return nil
}
