package planner

import (
	"slices"

	"github.com/stridelab/stridelab/sbp/minsum"
)

// A tensor read by many ops joins them all in one factor (the copies
// its readers need are shared), and that factor alone sets the width of
// the elimination: a `zero` read by the max of every layer of a chain
// joins every layer. splitFactor breaks such a factor up with auxiliary
// variables, one per layout l the readers could need (L, the union of
// their candidates' needs): y_l, binary, "a copy of x in layout l is
// made". The factor becomes
//
//	hub(s, y) = copyPlan(x, layout of s, {l : y_l = 1} ∪ fixed needs)
//	need(r, y_l) = +∞ if reader r's candidate reads x in l and y_l = 0, else 0
//
// a hub over the source op's layout classes and the y's (2^|L| entries
// per class; no op at all for an input or constant), and one pair per
// reader op and layout it could need. A min over the y's of the sum is
// then min over the sets S ⊇ N (N, the layouts the readers need) of
// hub(S), which is hub(N), the joined factor's value, exactly when the
// hub is monotone: S ⊆ T implies hub(S) ≤ hub(T). A tree of boxings
// that makes a layout no reader needs can be cheaper (the layout a
// waypoint for others), and copyPlan does not make it, so the split is
// used only where every hub entry passes the check (each set against
// its supersets by one layout, |L|·2^|L| comparisons per class), and
// elsewhere the tensor keeps its joined factor. The width of the
// elimination is then bounded by the program's structure and |L|, not
// by the number of readers.

// maxSplitEntries bounds a split's hub: its entries are filled (copyPlan
// each) before the elimination is known to fit its bounds, to check
// that the hub is monotone, so they must be cheap. 2^12 entries is
// |L| = 12 layouts for a constant, or 4 for an op's output with 256
// layout classes.
const maxSplitEntries = 1 << 12

// splitBelow is the least size of a joined factor (its entries) that
// splitFactor splits: below it the joined factor is cheap anyway.
const splitBelow = 1 << 12

// splitAlways makes splitFactor split every tensor it can, however
// small: the tests set it to check the split against enumeration on
// programs small enough to enumerate.
var splitAlways = false

// splitFactor returns x's factor split (a hub and the reader pairs,
// their tables filled) and dom with x's y variables appended, or nil
// when x keeps its joined factor of joined entries: it has fewer than
// two reader ops, its source op also reads it, the split is not
// smaller, its hub would pass budget entries (what is left of the
// search's bound on the entries it fills), or the hub is not monotone.
// Each hub entry is a unit of work for pl.poll.
func (pl *planner) splitFactor(x int, joined, budget float64, varOf, dom []int) ([]*minsum.Factor, []int, error) {
	if joined < splitBelow && !splitAlways {
		return nil, dom, nil
	}
	src := pl.srcVar(x, varOf)
	var readers, fixed, layouts []int
	for _, r := range pl.readers[x] {
		v := varOf[r.node]
		switch {
		case v < 0:
			fixed = append(fixed, pl.needOf(r, 0))
			continue
		case v == src:
			return nil, dom, nil
		case !slices.Contains(readers, v):
			readers = append(readers, v)
		}
		for k := range dom[v] {
			if l := pl.needOf(r, k); !slices.Contains(layouts, l) {
				layouts = append(layouts, l)
			}
		}
	}
	if len(readers) < 2 {
		return nil, dom, nil
	}
	slices.Sort(layouts)
	// The source's classes: its candidates by the layout they leave x in.
	var srcCls []int32
	var srcLay []int
	if src < 0 {
		srcLay = []int{pl.srcLayout(x, -1)}
	} else {
		srcCls = make([]int32, dom[src])
		for k := range dom[src] {
			l := pl.srcLayout(x, k)
			c := slices.Index(srcLay, l)
			if c < 0 {
				c = len(srcLay)
				srcLay = append(srcLay, l)
			}
			srcCls[k] = int32(c)
		}
	}
	nl := len(layouts)
	size := len(srcLay) << nl
	if nl > 30 || size > maxSplitEntries || float64(size) > budget || float64(size+4*nl*len(readers)) >= joined && !splitAlways {
		return nil, dom, nil
	}
	hub := make([]int64, size)
	for e := range hub {
		if err := pl.poll.Tick(1); err != nil {
			return nil, dom, err
		}
		need := slices.Clone(fixed)
		for i, l := range layouts { // y_i is bit nl-1-i: the last var fastest
			if e>>(nl-1-i)&1 == 1 {
				need = append(need, l)
			}
		}
		hub[e] = minsum.Infinite
		if t := pl.copyPlan(x, srcLay[e>>nl], need); t.err == nil {
			hub[e] = weight(t.bytes, t.boxings)
		}
	}
	for e := range hub {
		for b := range nl {
			if e>>b&1 == 0 && hub[e|1<<b] < hub[e] {
				return nil, dom, nil
			}
		}
	}
	ys := make([]int, nl)
	for i := range ys {
		ys[i] = len(dom)
		dom = append(dom, 2)
	}
	binary := []int32{0, 1}
	h := &minsum.Factor{Tab: hub}
	if src >= 0 {
		h.Vars, h.Cls, h.N = []int{src}, [][]int32{srcCls}, []int{len(srcLay)}
	}
	for _, y := range ys {
		h.Vars, h.Cls, h.N = append(h.Vars, y), append(h.Cls, binary), append(h.N, 2)
	}
	out := []*minsum.Factor{h}
	for _, v := range readers {
		for i, l := range layouts {
			// v's candidates in two classes: those that read x in l
			// (class 1 once one does) and those that do not.
			cls, n, first := make([]int32, dom[v]), 0, int32(-1)
			for k := range dom[v] {
				reads := false
				for _, r := range pl.readers[x] {
					reads = reads || varOf[r.node] == v && pl.needOf(r, k) == l
				}
				if first < 0 {
					first = int32(b2i(reads))
				}
				cls[k] = int32(b2i(reads != (first == 1)))
				if int(cls[k]) >= n {
					n = int(cls[k]) + 1
				}
			}
			if first < 0 || n == 1 && first == 0 {
				continue // no candidate of v reads x in l
			}
			// tab[c][y]: +∞ where class c reads x in l and y is 0.
			tab := make([]int64, 2*n)
			for c := range n {
				if (c == 1) != (first == 1) { // class c reads in l
					tab[2*c] = minsum.Infinite
				}
			}
			out = append(out, &minsum.Factor{Vars: []int{v, ys[i]}, Cls: [][]int32{cls, binary}, N: []int{n, 2}, Tab: tab})
		}
	}
	return out, dom, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
