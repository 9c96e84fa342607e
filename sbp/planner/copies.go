package planner

import (
	"fmt"
	"slices"
	"strconv"
)

// A tensor's readers may need it in several layouts. Every distinct
// layout is made once, by a boxing that starts from the tensor itself or
// from a copy already made for another reader (a B copy made for one
// reader is sliced to S(1) for another without sending a byte). The
// cheapest way to make a set of layouts is a minimum arborescence: the
// source layout is the root, every needed layout picks a parent (the
// root or another needed layout) and pays the bytes of the boxing from
// it, and no layout is its own ancestor. Layouts no reader needs are
// never made. copyPlan computes it; the exact search sums it per tensor,
// and simulate makes the copies along it, so both count the same bytes.

// copyTree is the cheapest way to make a set of layouts of one tensor:
// parent[k] is the layout need[k] is boxed from (the source or another
// need), with the bytes and boxings in all.
type copyTree struct {
	need    []int // the layouts made, sorted, the source left out
	parent  []int
	bytes   int64
	boxings int
	err     error // a boxing on every way could not be planned
}

// parentOf returns the layout layout id is boxed from in t.
func (t copyTree) parentOf(id int) (int, bool) {
	if k, ok := slices.BinarySearch(t.need, id); ok {
		return t.parent[k], true
	}
	return 0, false
}

// copyPlan returns the cheapest tree that makes every layout in need of
// the tensor of name index x from its source layout src (the
// minimum-cost arborescence rooted at src over src and the distinct
// needs, edges weighted by sbp.PlanBoxing's SendBytes, ties to fewer
// boxings). Each need first takes its cheapest parent; when that leaves
// no cycle it is the optimum (Edmonds' observation), else the parents
// are enumerated: O(kᵏ) for k needs, and k is the number of distinct
// layouts a tensor's readers want, rarely more than three. Results are
// memoized per (x, src, needs).
func (pl *planner) copyPlan(x, src int, need []int) copyTree {
	ids := make([]int, 0, len(need))
	for _, id := range need {
		if id != src && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	key := strconv.AppendInt(pl.treeKey[:0], int64(pl.shapeOf[x]), 10) // tensors of one shape box alike
	key = append(key, ':')
	key = strconv.AppendInt(key, int64(src), 10)
	for _, id := range ids {
		key = append(key, ',')
		key = strconv.AppendInt(key, int64(id), 10)
	}
	pl.treeKey = key
	if t, ok := pl.trees[string(key)]; ok {
		return t
	}
	t := pl.arborescence(x, src, ids)
	pl.trees[string(key)] = t
	return t
}

// edgeCost is the cost of boxing x from one layout to another, in the
// planner's unit (boxingCost: bytes, or picoseconds under Cost Time). ok is false when sbp cannot plan
// it.
func (pl *planner) edgeCost(x, from, to int) (int64, bool) {
	b, err := pl.boxing(x, from, to)
	if err != nil {
		return 0, false
	}
	c, err := pl.boxingCost(b)
	return c, err == nil
}

func (pl *planner) arborescence(x, src int, need []int) copyTree {
	k := len(need)
	t := copyTree{need: need, parent: make([]int, k)}
	if k == 0 {
		return t
	}
	nodes := append([]int{src}, need...) // index 0 is the root
	const none = int64(-1)
	w := make([][]int64, k+1) // w[a][b]: boxing nodes[a] to nodes[b]
	for a := range w {
		w[a] = make([]int64, k+1)
		for b := range w[a] {
			w[a][b] = none
			if a != b && b != 0 {
				if c, ok := pl.edgeCost(x, nodes[a], nodes[b]); ok {
					w[a][b] = c
				}
			}
		}
	}
	par, missing := minTree(w, k)
	if missing > 0 {
		t.err = fmt.Errorf("no boxing makes %v from %v", pl.nds[need[missing-1]], pl.nds[src])
		return t
	}
	if par == nil {
		t.err = fmt.Errorf("no tree of boxings makes %v from %v", pl.ndsOf(need), pl.nds[src])
		return t
	}
	for b := 1; b <= k; b++ {
		t.parent[b-1] = nodes[par[b]]
		t.bytes += w[par[b]][b]
		t.boxings++
	}
	return t
}

// minTree returns the parents of the cheapest arborescence over w (w[a][b]
// the cost of an edge from node a to node b, -1 where there is none;
// node 0 the root, 1…k the needs): each need's cheapest parent, the
// root first on ties, and where that leaves a cycle the cheapest
// acyclic parent array (bestParents). missing is the first need no edge
// reaches (0 when there is none); par is nil when no tree exists.
func minTree(w [][]int64, k int) (par []int, missing int) {
	par = make([]int, k+1)
	for b := 1; b <= k; b++ {
		par[b] = -1
		for a := 0; a <= k; a++ {
			if c := w[a][b]; c >= 0 && a != b && (par[b] < 0 || c < w[par[b]][b]) {
				par[b] = a
			}
		}
		if par[b] < 0 {
			return nil, b
		}
	}
	if !acyclic(par) {
		par = bestParents(w, k)
	}
	return par, 0
}

// acyclic reports whether following par from every node reaches the
// root, index 0.
func acyclic(par []int) bool {
	for b := 1; b < len(par); b++ {
		a, steps := b, 0
		for a != 0 {
			a, steps = par[a], steps+1
			if steps > len(par) {
				return false
			}
		}
	}
	return true
}

// bestParents enumerates every parent array over k needs and returns
// the cheapest acyclic one (ties to the first enumerated, roots first),
// or nil when there is none.
func bestParents(w [][]int64, k int) []int {
	par := make([]int, k+1)
	var best []int
	bestCost := int64(-1)
	// rest[b]: the cheapest edges into needs b…k, a bound on what
	// completing a prefix costs; a prefix whose cost and bound reach
	// the best is not walked (it cannot beat it, so the first tree
	// enumerated among ties is kept).
	rest := make([]int64, k+2)
	for b := k; b >= 1; b-- {
		low := int64(-1)
		for a := 0; a <= k; a++ {
			if c := w[a][b]; c >= 0 && a != b && (low < 0 || c < low) {
				low = c
			}
		}
		if low < 0 {
			return nil
		}
		rest[b] = rest[b+1] + low
	}
	var walk func(b int, cost int64)
	walk = func(b int, cost int64) {
		if bestCost >= 0 && cost+rest[b] >= bestCost {
			return
		}
		if b > k {
			if acyclic(par) {
				best, bestCost = slices.Clone(par), cost
			}
			return
		}
		for a := 0; a <= k; a++ {
			if c := w[a][b]; c >= 0 && a != b {
				par[b] = a
				walk(b+1, cost+c)
			}
		}
	}
	walk(1, 0)
	return best
}

// treeCost returns the cost of the cheapest arborescence over w (as
// minTree reads it: node 0 the root, 1…k the needs, -1 where there is
// no edge), or -1 when there is none: each need's cheapest parent where
// that leaves no cycle, else Chu–Liu/Edmonds, O(k³), not minTree's
// enumeration. For where only the cost is needed (the exact search's
// tables): the cheapest tree's cost is one, whichever tree minTree
// breaks ties to.
func treeCost(w [][]int64, k int) int64 {
	var cheap [9]int
	par := cheap[:0]
	if k < len(cheap) {
		par = cheap[:k+1]
	} else {
		par = make([]int, k+1)
	}
	total := int64(0)
	for b := 1; b <= k; b++ {
		par[b] = -1
		for a := 0; a <= k; a++ {
			if c := w[a][b]; c >= 0 && a != b && (par[b] < 0 || c < w[par[b]][b]) {
				par[b] = a
			}
		}
		if par[b] < 0 {
			return -1
		}
		total += w[par[b]][b]
	}
	if acyclic(par) {
		return total
	}
	return edmonds(w, k)
}

// edmonds is treeCost's contraction of cycles (Chu–Liu/Edmonds).
func edmonds(w [][]int64, k int) int64 {
	type edge struct {
		u, v int
		c    int64
	}
	n, root := k+1, 0
	// Buffers on the stack for the common few needs.
	var esBuf [72]edge
	var inBuf [9]int64
	var intBuf [27]int
	es := esBuf[:0]
	for a := range n {
		for b := 1; b < n; b++ {
			if a != b && w[a][b] >= 0 {
				es = append(es, edge{a, b, w[a][b]})
			}
		}
	}
	var in []int64
	var pre, id, vis []int
	if n <= len(inBuf) {
		in, pre, id, vis = inBuf[:n], intBuf[:n], intBuf[9:9+n], intBuf[18:18+n]
	} else {
		in, pre, id, vis = make([]int64, n), make([]int, n), make([]int, n), make([]int, n)
	}
	total := int64(0)
	for {
		for i := range n {
			in[i] = -1
		}
		for _, e := range es {
			if e.u != e.v && (in[e.v] < 0 || e.c < in[e.v]) {
				in[e.v], pre[e.v] = e.c, e.u
			}
		}
		for i := range n {
			if i != root && in[i] < 0 {
				return -1
			}
		}
		cycles := 0
		for i := range n {
			id[i], vis[i] = -1, -1
		}
		in[root] = 0
		for i := range n {
			total += in[i]
			v := i
			for vis[v] != i && id[v] == -1 && v != root {
				vis[v] = i
				v = pre[v]
			}
			if v != root && id[v] == -1 { // v is on a new cycle
				for u := pre[v]; u != v; u = pre[u] {
					id[u] = cycles
				}
				id[v] = cycles
				cycles++
			}
		}
		if cycles == 0 {
			return total
		}
		for i := range n {
			if id[i] == -1 {
				id[i] = cycles
				cycles++
			}
		}
		j := 0
		for _, e := range es {
			if u, v := id[e.u], id[e.v]; u != v {
				es[j] = edge{u, v, e.c - in[e.v]}
				j++
			}
		}
		es, n, root = es[:j], cycles, id[root]
	}
}
