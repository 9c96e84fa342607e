package minsum

import (
	"math/rand/v2"
	"slices"
)

// Refine returns the classes of a var's candidates that tell apart what
// any of parts tells apart (the tuple of its classes in each), numbered
// in order of first appearance, and their number.
func Refine(parts [][]int32, dom int) ([]int32, int) {
	out := make([]int32, dom)
	if len(parts) == 1 {
		copy(out, parts[0])
		n := int32(0)
		for _, c := range out {
			n = max(n, c+1)
		}
		return out, int(n)
	}
	ids := map[string]int32{}
	key := make([]byte, 0, 4*len(parts))
	for k := range dom {
		key = key[:0]
		for _, p := range parts {
			key = append(key, byte(p[k]), byte(p[k]>>8), byte(p[k]>>16), byte(p[k]>>24))
		}
		id, ok := ids[string(key)]
		if !ok {
			id = int32(len(ids))
			ids[string(key)] = id
		}
		out[k] = id
	}
	return out, len(ids)
}

// Order picks the order of elimination: greedy, each step
// eliminating the op whose joined table is smallest (min-weight; Koller &
// Friedman §9.4.3), scored on the factors' classes alone, without
// filling a table. Greedy orders are not optimal (finding one is
// NP-hard), so it also tries the smallest new table first and a few
// runs with the scores jittered (a deterministic seed), and keeps the
// order whose tables have the fewest entries in all. It returns the
// order, the largest new table's entries, the most variables one step
// joins (the width) and the joined tables' entries in all (the work).
//
// An order whose work passes stop is given up; found is false when every
// one is. Each variable scored is a unit of work for poll.
func Order(fs []*Factor, dom []int, stop float64, poll *Poller) (best []int, bestBig float64, bestWidth int, bestWork float64, found bool, err error) {
	bestWork = -1
	rng := rand.New(rand.NewPCG(30, 2))
	// Every try scores every variable on the same factors first: once.
	first := make([][2]float64, len(dom))
	for v := range dom {
		if err := poll.Tick(1); err != nil {
			return nil, 0, 0, 0, false, err
		}
		first[v] = JoinSize(v, fs, dom)
	}
	for try := range orderTries {
		limit := stop
		if bestWork >= 0 {
			limit = min(stop, bestWork)
		}
		order, big, width, work, ok, err := greedyOrder(fs, dom, first, try, rng, limit, poll)
		if err != nil {
			return nil, 0, 0, 0, false, err
		}
		if ok && (bestWork < 0 || work < bestWork) {
			best, bestBig, bestWidth, bestWork, found = order, big, width, work, true
		}
	}
	return best, bestBig, bestWidth, max(bestWork, 0), found, nil
}

// orderTries is how many greedy orders eliminationOrder compares: the
// two plain scores and six jittered runs of the first. Each costs the
// symbolic joins only, a small part of the elimination itself.
const orderTries = 8

// greedyOrder runs one greedy elimination on the classes of fs: try 0
// scores by the joined table (min-weight), try 1 by the new table, try
// 2 by the fill (min-fill: the pairs of v's neighbours the step makes
// neighbours, Koller & Friedman §9.4.3.2; ties by the joined table),
// later tries alternate the first and the third with the joined table
// jittered by up to ±25%. It stops (ok false) once its work passes
// stop.
func greedyOrder(fs []*Factor, dom []int, first [][2]float64, try int, rng *rand.Rand, stop float64, poll *Poller) ([]int, float64, int, float64, bool, error) {
	fs = slices.Clone(fs)
	done := make([]bool, len(dom))
	score := make([]float64, len(dom))
	primary := make([]float64, len(dom)) // compared before score
	joined := make([]float64, len(dom))
	built := make([]float64, len(dom)) // the new table's entries
	stale := make([]bool, len(dom))
	for v := range stale {
		stale[v] = true
	}
	minFill := try >= 2 && try%2 == 0
	adj := make([]map[int]bool, len(dom)) // the interaction graph, for min-fill
	if minFill {
		for v := range adj {
			adj[v] = map[int]bool{}
		}
		for _, f := range fs {
			for _, a := range f.Vars {
				for _, b := range f.Vars {
					if a != b {
						adj[a][b] = true
					}
				}
			}
		}
	}
	var order []int
	big, width, work := 0.0, 0, 0.0
	for step := range dom {
		best := -1
		for v := range dom {
			if done[v] {
				continue
			}
			if stale[v] {
				if step == 0 {
					joined[v], built[v] = first[v][0], first[v][1]
				} else {
					if err := poll.Tick(1); err != nil {
						return nil, 0, 0, 0, false, err
					}
					js := JoinSize(v, fs, dom)
					joined[v], built[v] = js[0], js[1]
				}
				size := built[v]
				jitter := 1.0
				if try > 2 {
					jitter = 0.75 + 0.5*rng.Float64()
				}
				switch {
				case try == 1:
					score[v] = size
				case minFill:
					fill := 0
					for a := range adj[v] {
						for b := range adj[v] {
							if a < b && !adj[a][b] {
								fill++
							}
						}
					}
					primary[v], score[v] = float64(fill), joined[v]*jitter
				default:
					score[v] = joined[v] * jitter
				}
				stale[v] = false
			}
			if best < 0 || primary[v] < primary[best] || primary[v] == primary[best] && score[v] < score[best] {
				best = v
			}
		}
		v := best
		done[v] = true
		order = append(order, v)
		join, rest := Holding(fs, v)
		nf, _ := SymbolicJoin(v, join, dom)
		big, work = max(big, built[v]), work+joined[v]
		width = max(width, len(nf.Vars)+1)
		if work > stop {
			return nil, 0, 0, 0, false, nil
		}
		for _, u := range nf.Vars {
			stale[u] = true
		}
		for _, f := range join {
			for _, u := range f.Vars {
				stale[u] = true
			}
		}
		if minFill {
			// v's neighbours become a clique; the fill of their
			// neighbours changes too.
			for a := range adj[v] {
				delete(adj[a], v)
				for b := range adj[v] {
					if a != b {
						adj[a][b] = true
					}
				}
			}
			for a := range adj[v] {
				for b := range adj[a] {
					stale[b] = true
				}
			}
			adj[v] = nil
		}
		if len(nf.Vars) > 0 {
			rest = append(rest, nf)
		}
		fs = rest
	}
	return order, big, width, work, true, nil
}

// Holding splits fs into the factors that hold variable v (the ones
// eliminating v joins) and the rest, each in fs's order.
func Holding(fs []*Factor, v int) (join, rest []*Factor) {
	for _, f := range fs {
		if _, ok := slices.BinarySearch(f.Vars, v); ok {
			join = append(join, f)
		} else {
			rest = append(rest, f)
		}
	}
	return join, rest
}

// JoinSize returns the entries of the table that eliminating v from fs
// joins, and of the new table it builds.
func JoinSize(v int, fs []*Factor, dom []int) [2]float64 {
	var join []*Factor // Holding's join, without its rest: this runs for every variable scored
	for _, f := range fs {
		if _, ok := slices.BinarySearch(f.Vars, v); ok {
			join = append(join, f)
		}
	}
	nf, vn := SymbolicJoin(v, join, dom)
	size := 1.0
	for _, n := range nf.N {
		size *= float64(n)
	}
	return [2]float64{size * float64(vn), size}
}

// SymbolicJoin is eliminate without the table: the new factor's vars and
// classes, and the number of v's classes.
func SymbolicJoin(v int, join []*Factor, dom []int) (*Factor, int) {
	nf, rep, _, _ := eliminate(v, join, dom, nil, false)
	return nf, len(rep)
}

// Eliminate joins the factors that hold v and minimizes v out: the new
// factor over the others' vars (their classes refined over the join),
// the first candidate of each of v's classes, and per entry the class
// of v that is cheapest (the first on ties: the earlier candidate).
//
// Each entry of the table is a unit of work for poll (which may be nil).
func Eliminate(v int, join []*Factor, dom []int, poll *Poller) (*Factor, []int, []int32, error) {
	return eliminate(v, join, dom, poll, true)
}

// eliminate is Eliminate, which without fill only works out the new
// factor's vars and classes (SymbolicJoin).
func eliminate(v int, join []*Factor, dom []int, poll *Poller, fill bool) (*Factor, []int, []int32, error) {
	var scope []int
	for _, f := range join {
		for _, u := range f.Vars {
			if u != v && !slices.Contains(scope, u) {
				scope = append(scope, u)
			}
		}
	}
	slices.Sort(scope)
	nf := &Factor{Vars: scope, Cls: make([][]int32, len(scope)), N: make([]int, len(scope))}
	// contrib[fi][s][c]: what scope var s in its refined class c adds
	// to factor fi's index; vcontrib[fi][c] the same for v.
	contrib := make([][][]int, len(join))
	strides := make([][]int, len(join))
	for fi, f := range join {
		strides[fi] = make([]int, len(f.Vars))
		st := 1
		for j := len(f.Vars) - 1; j >= 0; j-- {
			strides[fi][j] = st
			st *= f.N[j]
		}
		contrib[fi] = make([][]int, len(scope))
	}
	refineVar := func(u int) ([]int32, int, [][]int) {
		var parts [][]int32
		for _, f := range join {
			if _, ok := slices.BinarySearch(f.Vars, u); ok {
				parts = append(parts, f.ClassesOf(u))
			}
		}
		cls, n := Refine(parts, dom[u])
		per := make([][]int, len(join)) // per factor: refined class → index contribution
		for fi, f := range join {
			j, ok := slices.BinarySearch(f.Vars, u)
			if !ok {
				per[fi] = make([]int, n)
				continue
			}
			per[fi] = make([]int, n)
			for k, c := range cls {
				per[fi][c] = int(f.Cls[j][k]) * strides[fi][j]
			}
		}
		return cls, n, per
	}
	size := 1
	for s, u := range scope {
		var per [][]int
		nf.Cls[s], nf.N[s], per = refineVar(u)
		for fi := range join {
			contrib[fi][s] = per[fi]
		}
		size *= nf.N[s]
	}
	vcls, vn, vcontrib := refineVar(v)
	rep := make([]int, vn)
	for k := len(vcls) - 1; k >= 0; k-- {
		rep[vcls[k]] = k
	}
	if !fill {
		return nf, rep, nil, nil
	}
	nf.Tab = make([]int64, size)
	argmin := make([]int32, size)
	idx := make([]int, len(join))
	for fi := range join {
		for s := range scope {
			idx[fi] += contrib[fi][s][0]
		}
	}
	asg := make([]int, len(scope))
	for e := range nf.Tab {
		if e%pollEntries == 0 {
			if err := poll.Tick(pollEntries * vn); err != nil {
				return nil, nil, nil, err
			}
		}
		best, arg := Infinite, 0
		switch len(join) {
		case 2: // the common step, unrolled: a sum of two values at most infinite does not overflow
			t0, t1, v0, v1 := join[0].Tab[idx[0]:], join[1].Tab[idx[1]:], vcontrib[0], vcontrib[1]
			for c := range vn {
				if sum := t0[v0[c]] + t1[v1[c]]; sum < best {
					best, arg = sum, c
				}
			}
		case 3: // likewise: three values at most infinite do not overflow
			t0, t1, t2, v0, v1, v2 := join[0].Tab[idx[0]:], join[1].Tab[idx[1]:], join[2].Tab[idx[2]:], vcontrib[0], vcontrib[1], vcontrib[2]
			for c := range vn {
				if sum := t0[v0[c]] + t1[v1[c]] + t2[v2[c]]; sum < best {
					best, arg = sum, c
				}
			}
		default:
			for c := range vn {
				sum := int64(0)
				for fi, f := range join {
					if sum = Add(sum, f.Tab[idx[fi]+vcontrib[fi][c]]); sum >= Infinite {
						break
					}
				}
				if sum < best {
					best, arg = sum, c
				}
			}
		}
		nf.Tab[e], argmin[e] = best, int32(arg)
		for s := len(scope) - 1; s >= 0; s-- {
			old := asg[s]
			asg[s]++
			if asg[s] == nf.N[s] {
				asg[s] = 0
			}
			for fi := range join {
				idx[fi] += contrib[fi][s][asg[s]] - contrib[fi][s][old]
			}
			if asg[s] != 0 {
				break
			}
		}
	}
	return nf, rep, argmin, nil
}

// pollEntries is how many of a new table's entries eliminate fills
// between two reports to its poller.
const pollEntries = 256

// Add is a + b, kept at infinite.
func Add(a, b int64) int64 {
	if a >= Infinite || b >= Infinite {
		return Infinite
	}
	return min(a+b, Infinite)
}
