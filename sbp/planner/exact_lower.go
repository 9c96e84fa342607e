package planner

import (
	"slices"

	"github.com/stridelab/stridelab/sbp/minsum"
)

// A tensor's joined factor too large for tighten's first stage
// (deferAbove) is left out of it, and without it the relaxation knows
// nothing of what reading the tensor costs: every layout its readers
// could read it in survives, and the factor, filled over what survives,
// can still be too large (on a 2-D mesh a 3-D tensor has 25 layouts,
// and a tensor of five ops 25^5 entries). readLowerBounds stands in for
// it in the first stage with small factors whose sum never passes it,
// so the first stage's bounds stay bounds:
//
//	f(s, r₁…r_m) = tree(s, N)  ≥  max_i d(s, l_i)  ≥  Σ_i ⌊d(s, l_i) / m⌋
//
// where N = {l_i} are the layouts the m reads need, tree(s, N) the
// cheapest tree of boxings from the source's layout s over N (copyPlan:
// an arborescence over s and N alone), and d(s, l) the cheapest path of
// boxings from s to l through the layouts the factor's ops could lay
// out or read (0 where l = s): the tree holds a path from s to every l
// in N, over layouts of that set, with at least one boxing. Each term is
// a factor over the source op and one reader op (the reader alone where
// the source is an input), a table of its layouts by the reader's
// needs.
func (pl *planner) readLowerBounds(x int, varOf, dom []int) []*minsum.Factor {
	src := pl.srcVar(x, varOf)
	m := int64(len(pl.readers[x]))
	// The layouts: the source's, by class, and every read's.
	var lays []int
	index := func(l int) int {
		i := slices.Index(lays, l)
		if i < 0 {
			i = len(lays)
			lays = append(lays, l)
		}
		return i
	}
	srcCls, srcN := []int32(nil), 1
	var srcAt []int // source class → its layout's index in lays
	if src < 0 {
		srcAt = []int{index(pl.srcLayout(x, -1))}
	} else {
		srcCls = make([]int32, dom[src])
		for k := range dom[src] {
			i := index(pl.srcLayout(x, k))
			c := slices.Index(srcAt, i)
			if c < 0 {
				c = len(srcAt)
				srcAt = append(srcAt, i)
			}
			srcCls[k] = int32(c)
		}
		srcN = len(srcAt)
	}
	type readCls struct {
		v   int
		cls []int32
		at  []int // class → the need's index in lays
	}
	var reads []readCls
	for _, r := range pl.readers[x] {
		v := varOf[r.node]
		if v < 0 || v == src {
			continue // a term left out: the bound stays a bound
		}
		rc := readCls{v: v, cls: make([]int32, dom[v])}
		for k := range dom[v] {
			i := index(pl.needOf(r, k))
			c := slices.Index(rc.at, i)
			if c < 0 {
				c = len(rc.at)
				rc.at = append(rc.at, i)
			}
			rc.cls[k] = int32(c)
		}
		reads = append(reads, rc)
	}
	if len(reads) == 0 {
		return nil
	}
	// d: the cheapest paths of boxings between the layouts (Floyd–Warshall).
	n := len(lays)
	d := make([][]int64, n)
	for a := range d {
		d[a] = make([]int64, n)
		for b := range d[a] {
			d[a][b] = minsum.Infinite
			if c, ok := pl.edgeCost(x, lays[a], lays[b]); ok && a != b {
				d[a][b] = c
			}
		}
		d[a][a] = 0
	}
	for k := range n {
		for a := range n {
			for b := range n {
				if d[a][k] < minsum.Infinite && d[k][b] < minsum.Infinite && d[a][k]+d[k][b] < d[a][b] {
					d[a][b] = d[a][k] + d[k][b]
				}
			}
		}
	}
	term := func(from, to int) int64 {
		switch {
		case from == to:
			return 0
		case d[from][to] >= minsum.Infinite:
			return minsum.Infinite
		}
		return weight(d[from][to], 1) / m
	}
	var out []*minsum.Factor
	for _, rc := range reads {
		f := &minsum.Factor{}
		if src >= 0 {
			f.Vars, f.Cls, f.N = []int{src}, [][]int32{srcCls}, []int{srcN}
		}
		reader := len(f.Vars)
		f.Vars, f.Cls, f.N = append(f.Vars, rc.v), append(f.Cls, rc.cls), append(f.N, len(rc.at))
		if src > rc.v { // Vars sorted
			f.Vars[0], f.Vars[1] = f.Vars[1], f.Vars[0]
			f.Cls[0], f.Cls[1] = f.Cls[1], f.Cls[0]
			f.N[0], f.N[1] = f.N[1], f.N[0]
			reader = 0
		}
		f.Tab = make([]int64, srcN*len(rc.at))
		for s := range srcN {
			for c := range rc.at {
				e := s*len(rc.at) + c // the reader fastest
				if reader == 0 {
					e = c*srcN + s
				}
				f.Tab[e] = term(srcAt[s], rc.at[c])
			}
		}
		out = append(out, f)
	}
	return out
}
