package program

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The exact search is a min-sum labelling of the program's graph: every
// op node is a variable whose values are its candidates (the full
// signature space), and every tensor x is a factor over the op that
// lays it out (its producer, or for the backward's seed the op of the
// result it seeds) and the ops that read it, whose value is what making
// the layouts its readers need costs (copyPlan: the cheapest tree of
// boxings, in bytes, then boxings). The total of the factors is the
// plan's bytes, as simulate writes them.
//
// It is solved by variable elimination (bucket elimination, Dechter
// 1999; Koller & Friedman, Probabilistic Graphical Models, §9.3, in its
// min-sum form): eliminating op v joins the factors that hold v into one
// table over their other ops, the minimum over v's candidates, and keeps
// the argmin; back-substitution in the reverse order reads every op's
// candidate off the argmins. A factor does not tell apart the candidates
// of an op that mean the same to it (a tensor's factor sees of a reader
// only the layout it reads), so each factor keeps, per op, the classes
// of its candidates, and its table is indexed by classes: a join refines
// the classes of each op to the tuples of its classes in the joined
// factors. The order is greedy min-weight (each step eliminates the op
// whose joined table is smallest, ties to the earlier op). The work is Σ
// over the steps of the joined table's entries, Π over the ops in its
// scope of their classes: exponential only in the width of the
// elimination (the most ops one table joins), linear in the program's
// length. OneFlow's SbpGraph reduces the same graph by eliminating nodes
// and edges of degree one and two (sbp_graph.cpp); those are the steps
// of this elimination whose tables have one or two ops. Before it, once
// the tables are filled, prune merges every class of an op's candidates
// that an earlier class dominates into it: the argmins, and so the
// plan, are the same, over smaller tables.
//
// A tensor read by many ops would join them all in its factor, however
// far apart they are; splitFactor (split.go) replaces such a factor by
// one binary variable per layout its readers could need ("a copy in that
// layout is made"), a hub over the source and those variables, and a
// pair per reader and layout, wherever that is exact (the hub is
// monotone) and smaller. The width is then the most variables one table
// joins: ops, and the copy flags of split tensors.

// factor is a table over a few ops: vars (sorted variable indices);
// per var, the class of each of its candidates (cls) and the number of
// classes (n); tab row-major over the classes, the last var fastest.
type factor struct {
	vars []int
	cls  [][]int32
	n    []int
	tab  []int64
}

// directWork is the most table entries the elimination fills on the
// whole space before tighten bounds it first: below it the elimination
// is quicker than the bound.
const directWork = 1 << 20

// tightenAlways makes exact bound every program first, however cheap its
// elimination: the tests set it to check tighten against enumeration on
// programs small enough to enumerate.
var tightenAlways = false

// infinite marks a table entry no boxing can make.
const infinite = int64(math.MaxInt64 / 4)

// weight is a factor value: bytes above, boxings in the low 16 bits, so
// that sums compare bytes first and boxings break ties.
func weight(bytes int64, boxings int) int64 { return bytes<<16 + int64(boxings) }

// classesOf returns the classes of var u's candidates in f.
func (f *factor) classesOf(u int) []int32 {
	s, _ := slices.BinarySearch(f.vars, u)
	return f.cls[s]
}

// exact returns the candidate of every node (-1 for a node that is not
// an op) that sends the fewest bytes in all, or why it refused: when one
// table of the elimination would pass bound entries, or filling them
// all (Σ over the steps of the joined table's entries) would pass total,
// the bound of a plan rebuilt on every keystroke where keystroke is set.
// Where the whole space's elimination would fill more than directWork
// entries (and not on a keystroke), tighten first drops the candidates
// in no optimal plan, starting from upper (a candidate per node:
// greedy's plan), and the elimination runs on the rest.
//
// It stops with the context's error, polled by pl.poll, when that ends
// first.
func (pl *planner) exact(bound, total int, keystroke bool, upper []int) ([]int, string, error) {
	var vars []int // variable → node
	varOf := make([]int, len(pl.g.nodes))
	for i := range pl.g.nodes {
		varOf[i] = -1
		if pl.cands[i] != nil {
			varOf[i] = len(vars)
			vars = append(vars, i)
		}
	}
	dom := make([]int, len(vars))
	for v, i := range vars {
		dom[v] = len(pl.cands[i])
	}
	var fs []*factor
	constant, work, width, biggest := int64(0), 0.0, 0, 0.0
	var fills []func() error
	var tensorOf []int // per factor, the tensor whose joined factor it is (-1: a split's part)
	for x := range len(pl.names) {
		f, fill := pl.tensorFactor(x, pl.scope(x, varOf), varOf, dom, nil)
		size := 1.0
		for _, n := range f.n {
			size *= float64(n)
		}
		split, d, err := pl.splitFactor(x, size, float64(total)-work, varOf, dom)
		if err != nil {
			return nil, "", err
		}
		if split != nil {
			dom = d
			for _, f := range split {
				width, biggest = max(width, len(f.vars)), max(biggest, float64(len(f.tab)))
				work += float64(len(f.tab))
				fs = append(fs, f)
				fills = append(fills, func() error { return nil })
				tensorOf = append(tensorOf, -1)
			}
			continue
		}
		work += size
		if len(f.vars) == 0 {
			if err := fill(); err != nil {
				return nil, "", err
			}
			constant = add(constant, f.tab[0])
			continue
		}
		width, biggest = max(width, len(f.vars)), max(biggest, size)
		fs = append(fs, f)
		fills = append(fills, fill)
		tensorOf = append(tensorOf, x)
	}
	if pl.cost == Time {
		// Each op's own time under each candidate: a factor over the op.
		for v, i := range vars {
			f := &factor{vars: []int{v}, cls: [][]int32{make([]int32, dom[v])}}
			seen := map[int64]int32{}
			for k := range dom[v] {
				t := weight(pl.opCost(i, k), 0)
				c, ok := seen[t]
				if !ok {
					c = int32(len(f.tab))
					seen[t] = c
					f.tab = append(f.tab, t)
				}
				f.cls[0][k] = c
			}
			f.n = []int{len(f.tab)}
			work += float64(len(f.tab))
			fs = append(fs, f)
			fills = append(fills, func() error { return nil })
			tensorOf = append(tensorOf, -1)
		}
	}
	beyond := fmt.Sprintf("more than its bound of %d", total)
	if keystroke {
		beyond = fmt.Sprintf("more than the %d a plan rebuilt on every keystroke computes: plan with --strategy exact", total)
	}
	refuse := func() string {
		if biggest <= float64(bound) {
			return fmt.Sprintf("the elimination's tables have %.0f entries to fill in all (%d variables at most in one), %s", work, width, beyond)
		}
		return fmt.Sprintf("the elimination's largest table has %.0f entries (%d variables in one table, the width of the elimination), more than its bound of %d", biggest, width, bound)
	}
	// A table past bound refuses at once on a keystroke; else the bound
	// below leaves it out of its first stage and fills it over what that
	// stage keeps (tightenStaged), and refuses only if it is still past.
	if work > float64(total) || biggest > float64(bound) && keystroke {
		return nil, refuse(), nil
	}
	fill := func() error {
		for _, fill := range fills {
			if err := fill(); err != nil {
				return err
			}
		}
		return nil
	}
	// Directly where the whole space's elimination is cheap; else (not
	// on a keystroke) the relaxation's bound drops the candidates in no
	// optimal plan first, and the elimination runs on the rest.
	direct := float64(total) - work
	if !keystroke {
		direct = min(direct, directWork)
		if tightenAlways || work > directWork/2 || biggest > float64(bound) { // its factors alone are most of the budget
			direct = -1
		}
	}
	var order []int
	var oBiggest, oWork float64
	var oWidth int
	found, err := false, error(nil)
	if direct >= 0 {
		if order, oBiggest, oWidth, oWork, found, err = eliminationOrder(fs, dom, direct, pl.poll); err != nil {
			return nil, "", err
		}
	}
	var kept [][]int // per variable, the candidates tighten kept (nil: all)
	note := ""       // what tighten did, for a refusal
	if (!found || oBiggest > float64(bound)) && !keystroke {
		before := 0
		for _, d := range dom {
			before += d
		}
		if fs, dom, kept, err = pl.tightenStaged(fs, fills, tensorOf, dom, constant, varOf, vars, slices.Clone(upper)); err != nil {
			if e, ok := err.(*tooLarge); ok {
				return nil, e.Error(), nil
			}
			return nil, "", err
		}
		var fixed int64
		fs, fixed = fixSingles(fs, dom)
		constant, fills = add(constant, fixed), nil
		after := 0
		for _, d := range dom {
			after += d
		}
		note = fmt.Sprintf("after the LP bound kept %d of %d candidates, ", after, before)
		width, biggest, work = 0, 0, 0 // the rest's own
		for _, f := range fs {
			width, biggest, work = max(width, len(f.vars)), max(biggest, float64(len(f.tab))), work+float64(len(f.tab))
		}
		if order, oBiggest, oWidth, oWork, found, err = eliminationOrder(fs, dom, float64(total)-work, pl.poll); err != nil {
			return nil, "", err
		}
	}
	width, biggest, work = max(width, oWidth), max(biggest, oBiggest), work+oWork
	if !found { // every order passed total
		if keystroke {
			return nil, fmt.Sprintf("every elimination order tried fills more than the %d table entries a plan rebuilt on every keystroke computes: plan with --strategy exact", total), nil
		}
		return nil, fmt.Sprintf("%severy elimination order tried fills more than %d table entries in all, the exact search's bound", note, total), nil
	}
	if biggest > float64(bound) || work > float64(total) {
		return nil, note + refuse(), nil
	}
	if err := fill(); err != nil {
		return nil, "", err
	}
	prune(fs, dom, nil)
	type step struct {
		v      int
		f      *factor // the new factor's vars and classes
		rep    []int   // v's class → its first candidate
		argmin []int32
	}
	var steps []step
	for _, v := range order {
		var join, rest []*factor
		for _, f := range fs {
			if _, ok := slices.BinarySearch(f.vars, v); ok {
				join = append(join, f)
			} else {
				rest = append(rest, f)
			}
		}
		nf, rep, argmin, err := eliminate(v, join, dom, pl.poll)
		if err != nil {
			return nil, "", err
		}
		steps = append(steps, step{v: v, f: nf, rep: rep, argmin: argmin})
		if len(nf.vars) == 0 {
			constant = add(constant, nf.tab[0])
			fs = rest
		} else {
			fs = append(rest, nf)
		}
	}
	if constant >= infinite {
		return nil, "no assignment of signatures has boxings sbp can plan", nil
	}
	value := make([]int, len(dom))
	for s := len(steps) - 1; s >= 0; s-- {
		st := steps[s]
		idx := 0
		for j, u := range st.f.vars {
			idx = idx*st.f.n[j] + int(st.f.cls[j][value[u]])
		}
		value[st.v] = st.rep[st.argmin[idx]]
	}
	choice := make([]int, len(pl.g.nodes))
	for i := range choice {
		choice[i] = -1
		if v := varOf[i]; v >= 0 {
			choice[i] = value[v]
			if kept != nil {
				choice[i] = kept[v][value[v]]
			}
		}
	}
	return choice, "", nil
}

// refine returns the classes of a var's candidates that tell apart what
// any of parts tells apart (the tuple of its classes in each), numbered
// in order of first appearance, and their number.
func refine(parts [][]int32, dom int) ([]int32, int) {
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

// eliminationOrder picks the order of elimination: greedy, each step
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
func eliminationOrder(fs []*factor, dom []int, stop float64, poll *poller) (best []int, bestBig float64, bestWidth int, bestWork float64, found bool, err error) {
	bestWork = -1
	rng := rand.New(rand.NewPCG(30, 2))
	// Every try scores every variable on the same factors first: once.
	first := make([][2]float64, len(dom))
	for v := range dom {
		if err := poll.tick(1); err != nil {
			return nil, 0, 0, 0, false, err
		}
		first[v] = joinSize(v, fs, dom)
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
func greedyOrder(fs []*factor, dom []int, first [][2]float64, try int, rng *rand.Rand, stop float64, poll *poller) ([]int, float64, int, float64, bool, error) {
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
			for _, a := range f.vars {
				for _, b := range f.vars {
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
					if err := poll.tick(1); err != nil {
						return nil, 0, 0, 0, false, err
					}
					js := joinSize(v, fs, dom)
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
		var join, rest []*factor
		for _, f := range fs {
			if _, ok := slices.BinarySearch(f.vars, v); ok {
				join = append(join, f)
			} else {
				rest = append(rest, f)
			}
		}
		nf, _ := symbolicJoin(v, join, dom)
		big, work = max(big, built[v]), work+joined[v]
		width = max(width, len(nf.vars)+1)
		if work > stop {
			return nil, 0, 0, 0, false, nil
		}
		for _, u := range nf.vars {
			stale[u] = true
		}
		for _, f := range join {
			for _, u := range f.vars {
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
		if len(nf.vars) > 0 {
			rest = append(rest, nf)
		}
		fs = rest
	}
	return order, big, width, work, true, nil
}

// joinSize returns the entries of the table that eliminating v from fs
// joins, and of the new table it builds.
func joinSize(v int, fs []*factor, dom []int) [2]float64 {
	var join []*factor
	for _, f := range fs {
		if _, ok := slices.BinarySearch(f.vars, v); ok {
			join = append(join, f)
		}
	}
	nf, vn := symbolicJoin(v, join, dom)
	size := 1.0
	for _, n := range nf.n {
		size *= float64(n)
	}
	return [2]float64{size * float64(vn), size}
}

// symbolicJoin is eliminate without the table: the new factor's vars and
// classes, and the number of v's classes.
func symbolicJoin(v int, join []*factor, dom []int) (*factor, int) {
	nf, rep, _, _ := eliminate(v, join, dom, nil)
	return nf, len(rep)
}

// eliminate joins the factors that hold v and minimizes v out: the new
// factor over the others' vars (their classes refined over the join),
// the first candidate of each of v's classes, and per entry the class
// of v that is cheapest (the first on ties: the earlier candidate).
//
// With poll nil it only works out the new factor's vars and classes;
// else it fills the table, each entry a unit of work for poll.
func eliminate(v int, join []*factor, dom []int, poll *poller) (*factor, []int, []int32, error) {
	var scope []int
	for _, f := range join {
		for _, u := range f.vars {
			if u != v && !slices.Contains(scope, u) {
				scope = append(scope, u)
			}
		}
	}
	slices.Sort(scope)
	nf := &factor{vars: scope, cls: make([][]int32, len(scope)), n: make([]int, len(scope))}
	// contrib[fi][s][c]: what scope var s in its refined class c adds
	// to factor fi's index; vcontrib[fi][c] the same for v.
	contrib := make([][][]int, len(join))
	strides := make([][]int, len(join))
	for fi, f := range join {
		strides[fi] = make([]int, len(f.vars))
		st := 1
		for j := len(f.vars) - 1; j >= 0; j-- {
			strides[fi][j] = st
			st *= f.n[j]
		}
		contrib[fi] = make([][]int, len(scope))
	}
	refineVar := func(u int) ([]int32, int, [][]int) {
		var parts [][]int32
		for _, f := range join {
			if _, ok := slices.BinarySearch(f.vars, u); ok {
				parts = append(parts, f.classesOf(u))
			}
		}
		cls, n := refine(parts, dom[u])
		per := make([][]int, len(join)) // per factor: refined class → index contribution
		for fi, f := range join {
			j, ok := slices.BinarySearch(f.vars, u)
			if !ok {
				per[fi] = make([]int, n)
				continue
			}
			per[fi] = make([]int, n)
			for k, c := range cls {
				per[fi][c] = int(f.cls[j][k]) * strides[fi][j]
			}
		}
		return cls, n, per
	}
	size := 1
	for s, u := range scope {
		var per [][]int
		nf.cls[s], nf.n[s], per = refineVar(u)
		for fi := range join {
			contrib[fi][s] = per[fi]
		}
		size *= nf.n[s]
	}
	vcls, vn, vcontrib := refineVar(v)
	rep := make([]int, vn)
	for k := len(vcls) - 1; k >= 0; k-- {
		rep[vcls[k]] = k
	}
	if poll == nil {
		return nf, rep, nil, nil
	}
	nf.tab = make([]int64, size)
	argmin := make([]int32, size)
	idx := make([]int, len(join))
	for fi := range join {
		for s := range scope {
			idx[fi] += contrib[fi][s][0]
		}
	}
	asg := make([]int, len(scope))
	for e := range nf.tab {
		if e%pollEntries == 0 {
			if err := poll.tick(pollEntries * vn); err != nil {
				return nil, nil, nil, err
			}
		}
		best, arg := infinite, 0
		switch len(join) {
		case 2: // the common step, unrolled: a sum of two values at most infinite does not overflow
			t0, t1, v0, v1 := join[0].tab[idx[0]:], join[1].tab[idx[1]:], vcontrib[0], vcontrib[1]
			for c := range vn {
				if sum := t0[v0[c]] + t1[v1[c]]; sum < best {
					best, arg = sum, c
				}
			}
		case 3: // likewise: three values at most infinite do not overflow
			t0, t1, t2, v0, v1, v2 := join[0].tab[idx[0]:], join[1].tab[idx[1]:], join[2].tab[idx[2]:], vcontrib[0], vcontrib[1], vcontrib[2]
			for c := range vn {
				if sum := t0[v0[c]] + t1[v1[c]] + t2[v2[c]]; sum < best {
					best, arg = sum, c
				}
			}
		default:
			for c := range vn {
				sum := int64(0)
				for fi, f := range join {
					if sum = add(sum, f.tab[idx[fi]+vcontrib[fi][c]]); sum >= infinite {
						break
					}
				}
				if sum < best {
					best, arg = sum, c
				}
			}
		}
		nf.tab[e], argmin[e] = best, int32(arg)
		for s := len(scope) - 1; s >= 0; s-- {
			old := asg[s]
			asg[s]++
			if asg[s] == nf.n[s] {
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

// add is a + b, kept at infinite.
func add(a, b int64) int64 {
	if a >= infinite || b >= infinite {
		return infinite
	}
	return min(a+b, infinite)
}

// srcVar is the variable (op) that decides the layout of name x, or -1
// when it is fixed: an op's output, the seed's through the result it
// seeds, an input's or a boxing's as given.
func (pl *planner) srcVar(x int, varOf []int) int {
	n := pl.g.nodes[pl.def[x]]
	if n.kind == nOnes {
		return pl.srcVar(pl.names[n.seedOf], varOf)
	}
	return varOf[pl.def[x]]
}

// srcLayout is the layout of name x when its srcVar takes candidate k.
func (pl *planner) srcLayout(x, k int) int {
	d := pl.def[x]
	n := pl.g.nodes[d]
	switch n.kind {
	case nOp:
		return pl.cands[d][k].out
	case nOnes:
		return pl.id(seedSbp(pl.nds[pl.srcLayout(pl.names[n.seedOf], k)]))
	}
	return pl.id(n.sbp)
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
func (pl *planner) tensorFactor(x int, scope, varOf, dom []int, kept [][]int) (*factor, func() error) {
	src := pl.srcVar(x, varOf)
	f := &factor{vars: scope, cls: make([][]int32, len(scope)), n: make([]int, len(scope))}
	reps := make([][]int, len(scope)) // per scope var: class → a candidate
	for s, v := range scope {
		f.cls[s] = make([]int32, dom[v])
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
			f.cls[s][k2] = g
		}
		f.n[s] = len(reps[s])
	}
	return f, func() error { return pl.fillTensorFactor(f, x, src, reps, varOf) }
}

// fillTensorFactor fills the table of x's factor f: reps[s][c] is a
// candidate of f's scope var s in class c. An entry's value depends on
// x's layout and the set of layouts its readers need alone, so copyPlan
// is asked once per such set (a tensor of m readers has far fewer sets
// than entries). Each entry is a unit of work for pl.poll.
func (pl *planner) fillTensorFactor(f *factor, x, src int, reps [][]int, varOf []int) error {
	scope := f.vars
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
			return infinite
		}
		return weight(bytes, k)
	}
	size := 1
	for s := range scope {
		size *= f.n[s]
	}
	f.tab = make([]int64, size)
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
		if err := pl.poll.tick(1); err != nil {
			return err
		}
		copy(set, fixedMask)
		f.tab[0] = entry(srcLay, set)
		return nil
	}
	// The table row by row (the classes of the last var): rows whose
	// other vars lay x out from the same layout and need the same set
	// are the same row, memoized by that pair (rowMemo), so that the
	// entry memo is asked once per distinct row and last class.
	last := len(scope) - 1
	nLast := f.n[last]
	rowMemo := map[string]int{} // → where in f.tab the row was first filled
	smallRows := map[uint64]int{}
	var rowKey []byte
	asg := make([]int, last) // the classes of the row's other vars, the last fastest
	pre := make([]uint64, words)
	for e := 0; e < len(f.tab); e += nLast {
		if err := pl.poll.tick(nLast); err != nil {
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
			copy(f.tab[e:e+nLast], f.tab[at:at+nLast])
		} else {
			row := f.tab[e : e+nLast]
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
			if asg[s]++; asg[s] < f.n[s] {
				break
			}
			asg[s] = 0
		}
	}
	return nil
}

// prune merges dominated candidates into the candidates that dominate
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
func prune(fs []*factor, dom []int, skip []bool) {
	holds := make([][]*factor, len(dom))
	for _, f := range fs {
		for _, u := range f.vars {
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
				pos[i], _ = slices.BinarySearch(f.vars, v)
				parts[i] = f.cls[pos[i]]
			}
			gcls, g := refine(parts, dom[v])
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
				below[i] = make([]int8, f.n[pos[i]]*f.n[pos[i]])
			}
			leq := func(i, a, b int) bool {
				f, j := holds[v][i], pos[i]
				n := f.n[j]
				if a == b {
					return true
				}
				if below[i][a*n+b] == 0 {
					st := 1
					for t := j + 1; t < len(f.vars); t++ {
						st *= f.n[t]
					}
					below[i][a*n+b] = 1
				scan:
					for o := 0; o < len(f.tab); o += n * st {
						ra, rb := f.tab[o+a*st:o+a*st+st], f.tab[o+b*st:o+b*st+st]
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
				n := f.n[j]
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
				for t := j + 1; t < len(f.vars); t++ {
					st *= f.n[t]
				}
				tab := make([]int64, len(f.tab)/n*int(nn))
				for o, p := 0, 0; o < len(f.tab); o, p = o+n*st, p+int(nn)*st {
					for a := range n {
						if b := keep[a]; b >= 0 {
							copy(tab[p+int(b)*st:p+int(b)*st+st], f.tab[o+a*st:o+a*st+st])
						}
					}
				}
				f.cls = slices.Clone(f.cls)
				f.n = slices.Clone(f.n)
				f.cls[j], f.n[j], f.tab = cls, int(nn), tab
			}
		}
	}
}
