package minsum

import "slices"

// Prune merges dominated candidates into the candidates that dominate
// them: a class C of var v's candidates (the tuple of its classes in
// the factors that hold v) is dominated by an earlier class D (D's first
// candidate before C's) when, in every factor that holds v, D's row is
// at most C's everywhere. Then no argmin of the elimination picks C (D
// is as cheap in every context and comes first), so C's candidates may
// take D's classes in every factor: the plan and its total are the
// same, and the factors lose the classes of v no candidate keeps.
// Rows grow equal or comparable as others shrink, so it runs rounds
// until nothing merges.
//
// A var with skip[v] set is left alone (skip may be nil): fs need not be
// every factor that holds it.
func Prune(fs []*Factor, dom []int, skip []bool) {
	holds := make([][]*Factor, len(dom))
	for _, f := range fs {
		for _, u := range f.Vars {
			holds[u] = append(holds[u], f)
		}
	}
	for changed := true; changed; {
		changed = false
		for v := range dom {
			if len(holds[v]) == 0 || skip != nil && skip[v] {
				continue
			}
			parts := make([][]int32, len(holds[v]))
			pos := make([]int, len(holds[v]))
			for i, f := range holds[v] {
				pos[i], _ = slices.BinarySearch(f.Vars, v)
				parts[i] = f.Cls[pos[i]]
			}
			gcls, g := Refine(parts, dom[v])
			if g < 2 {
				continue
			}
			rep := make([]int, g)
			for k := len(gcls) - 1; k >= 0; k-- {
				rep[gcls[k]] = k
			}
			// below[i][a*n+b]: in holds[v][i], v's class a is at most
			// class b everywhere (0 unknown, 1 yes, 2 no).
			below := make([][]int8, len(holds[v]))
			for i, f := range holds[v] {
				below[i] = make([]int8, f.N[pos[i]]*f.N[pos[i]])
			}
			leq := func(i, a, b int) bool {
				f, j := holds[v][i], pos[i]
				n := f.N[j]
				if a == b {
					return true
				}
				if below[i][a*n+b] == 0 {
					st := 1
					for t := j + 1; t < len(f.Vars); t++ {
						st *= f.N[t]
					}
					below[i][a*n+b] = 1
				scan:
					for o := 0; o < len(f.Tab); o += n * st {
						ra, rb := f.Tab[o+a*st:o+a*st+st], f.Tab[o+b*st:o+b*st+st]
						for t := range ra {
							if ra[t] > rb[t] {
								below[i][a*n+b] = 2
								break scan
							}
						}
					}
				}
				return below[i][a*n+b] == 1
			}
			alias := make([]int, g) // class → the class whose candidates' classes it takes
			merged := false
			for c := range g {
				alias[c] = c
				for d := range c {
					if alias[d] != d {
						continue
					}
					ok := true
					for i := range holds[v] {
						if !leq(i, int(parts[i][rep[d]]), int(parts[i][rep[c]])) {
							ok = false
							break
						}
					}
					if ok {
						alias[c], merged = d, true
						break
					}
				}
			}
			if !merged {
				continue
			}
			// Every factor: v's candidates take their alias's classes;
			// the classes none keeps are dropped from the table.
			for i, f := range holds[v] {
				j, old := pos[i], parts[i]
				n := f.N[j]
				keep := make([]int32, n) // old class → new, -1 if dropped
				for a := range keep {
					keep[a] = -1
				}
				cls := make([]int32, dom[v])
				nn := int32(0)
				for k := range cls {
					a := old[rep[alias[gcls[k]]]]
					if keep[a] < 0 {
						keep[a] = nn
						nn++
					}
					cls[k] = keep[a]
				}
				if int(nn) == n && slices.Equal(cls, old) {
					continue
				}
				changed = true
				st := 1
				for t := j + 1; t < len(f.Vars); t++ {
					st *= f.N[t]
				}
				tab := make([]int64, len(f.Tab)/n*int(nn))
				for o, p := 0, 0; o < len(f.Tab); o, p = o+n*st, p+int(nn)*st {
					for a := range n {
						if b := keep[a]; b >= 0 {
							copy(tab[p+int(b)*st:p+int(b)*st+st], f.Tab[o+a*st:o+a*st+st])
						}
					}
				}
				f.Cls = slices.Clone(f.Cls)
				f.N = slices.Clone(f.N)
				f.Cls[j], f.N[j], f.Tab = cls, int(nn), tab
			}
		}
	}
}
