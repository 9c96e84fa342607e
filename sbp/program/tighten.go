package program

import (
	"fmt"
	"math"
	"slices"
)

// tighten runs the relaxation (bound.go) and drops what it proves in no
// optimal plan, in rounds: every boundEvery passes it rounds the
// relaxation to a plan, improves the plan by single-op moves (improve),
// keeps the cheapest plan found as U (greedy's to start with), and drops
// every candidate whose bound passes U; the tables shrink to the
// candidates kept (restrict), and the passes go on over them.

// boundPasses is how many passes tighten runs at most, and boundEvery
// how many between two roundings (each a pass's work, and a plan's
// improvement). It stops early once the bound meets U, or when a
// rounding drops nothing and the bound gained less than boundGain of
// the gap left to U since the last, or once its passes have touched
// boundWork table entries (a few seconds): what it dropped by then
// stays dropped. A plan's total is a whole number of weight units, so a
// bound within one unit of U proves U the optimum.
const (
	boundPasses = 400
	boundEvery  = 4
	boundGain   = 1e-2
	boundWork   = 1 << 31
)

// slack is how far above U a candidate's bound may be and the candidate
// still be kept: the passes' sums are in float64, and a bound a
// rounding error above U must not drop a candidate of an optimal plan.
func slack(u float64) float64 { return 1e-9*math.Abs(u) + 1 }

// tighten drops the candidates in no optimal plan (those whose bound
// passes U, the cheapest plan it knows: upper's, a choice by node, or
// one rounded from the relaxation and improved, which then replaces
// upper) and returns the
// factors, domains and, per variable, the candidates kept (kept[v][k']
// is the candidate k' stands for). constant is the cost of the factors
// over no variable; vars maps a variable that is an op to its node
// (split tensors' copy flags come after them). kept, when not nil, is
// what fs's candidates stand for already (an earlier tighten's), and is
// narrowed in place. Each table entry a pass
// touches is a unit of work for pl.poll; work is their number.
func (pl *planner) tighten(fs []*factor, dom []int, constant int64, vars []int, upper []int, kept [][]int) ([]*factor, []int, [][]int, error) {
	r := newRelaxation(fs, dom)
	sc := r.scratch(dom)
	if kept == nil {
		kept = make([][]int, len(dom))
		for v := range kept {
			for k := range dom[v] {
				kept[v] = append(kept[v], k)
			}
		}
	}
	best := math.Inf(1)
	if c := pl.planCost(upper); c < infinite {
		best = float64(c)
	}
	lb := r.bound()
	var last []int // the last rounding, by node
	for p := range boundPasses {
		before := r.work
		r.pass(p%2 == 0, sc)
		if err := pl.poll.tick(int(r.work - before)); err != nil {
			return nil, nil, nil, err
		}
		if p%boundEvery != boundEvery-1 && r.work < boundWork {
			continue
		}
		next := r.bound()
		converged := next-lb <= boundGain*(best-float64(constant)-next)
		lb = next
		value := r.decode(len(vars), sc)
		choice := make([]int, len(pl.g.nodes))
		for i := range choice {
			choice[i] = -1
		}
		for v, node := range vars {
			choice[node] = kept[v][value[v]]
		}
		same := slices.Equal(choice, last)
		last = slices.Clone(choice)
		if same {
			// the same rounding as the last: improved already
		} else if c := pl.improve(choice, vars, kept); c < infinite && float64(c) < best {
			best = float64(c)
			copy(upper, choice)
		}
		bs := r.candidateBounds(lb, sc)
		alive := make([][]bool, len(dom))
		dropped := 0
		for v, b := range bs {
			alive[v] = make([]bool, len(b))
			for k := range b {
				alive[v][k] = b[k]+float64(constant) <= best+slack(best)
				if !alive[v][k] {
					dropped++
				}
			}
		}
		if dropped > 0 {
			r.restrict(alive, kept)
			lb = r.bound()
		}
		if lb+float64(constant) > best-1+slack(best) || converged && dropped == 0 || r.work >= boundWork {
			break
		}
	}
	out := make([]*factor, len(r.fs))
	ndom := make([]int, len(kept))
	for v := range kept {
		ndom[v] = len(kept[v])
	}
	copy(out, r.fs)
	return out, ndom, kept, nil
}

// deferAbove is the most entries a tensor's joined factor has and still
// take part in tighten's first stage: a larger one is left out of it (a
// factor is never negative, so the bounds without it are still bounds)
// and filled over the candidates the first stage keeps. The tests lower
// it to check the second stage against enumeration.
var deferAbove = 1 << 15

// tightenStaged is tighten in two stages: on the factors of at most
// deferAbove entries (each filled, fill by fill, its tensor tensorOf),
// then, where some were larger, on all of them, the larger filled over
// the candidates the first stage kept alone. prune merges dominated
// candidates before each stage, the first sparing the variables of the
// factors left out. A factor left out that is still over ExactBound
// entries over what the first stage kept is a *tooLarge.
func (pl *planner) tightenStaged(fs []*factor, fills []func() error, tensorOf []int, dom []int, constant int64, varOf, vars, upper []int) ([]*factor, []int, [][]int, error) {
	var now []*factor
	var later []int // tensors
	skip := make([]bool, len(dom))
	for i, f := range fs {
		size := 1
		for _, n := range f.n {
			size *= n
		}
		if size > deferAbove && tensorOf[i] >= 0 {
			later = append(later, tensorOf[i])
			for _, v := range f.vars {
				skip[v] = true
			}
			continue
		}
		if err := fills[i](); err != nil {
			return nil, nil, nil, err
		}
		now = append(now, f)
	}
	prune(now, dom, skip)
	fs, dom, kept, err := pl.tighten(now, dom, constant, vars, upper, nil)
	if err != nil || len(later) == 0 {
		return fs, dom, kept, err
	}
	for _, x := range later {
		f, fill := pl.tensorFactor(x, pl.scope(x, varOf), varOf, dom, kept)
		size := 1.0
		for _, n := range f.n {
			size *= float64(n)
		}
		if size > ExactBound {
			return nil, nil, nil, &tooLarge{name: pl.g.nodes[pl.def[x]].name, size: size, vars: len(f.vars)}
		}
		if err := fill(); err != nil {
			return nil, nil, nil, err
		}
		fs = append(fs, f)
	}
	prune(fs, dom, nil)
	return pl.tighten(fs, dom, constant, vars, upper, kept)
}

// fixSingles takes every variable left with one candidate out of the
// factors that hold it (each table sliced at that candidate's class),
// and returns the factors over more than one candidate and the sum of
// those left over no variable. The elimination then joins the choices
// still open alone; a variable no factor holds keeps candidate 0.
func fixSingles(fs []*factor, dom []int) ([]*factor, int64) {
	var out []*factor
	constant := int64(0)
	for _, f := range fs {
		g := f
		for j := len(g.vars) - 1; j >= 0; j-- {
			if dom[g.vars[j]] != 1 {
				continue
			}
			c := int(g.cls[j][0])
			inner := 1
			for _, n := range g.n[j+1:] {
				inner *= n
			}
			n := g.n[j]
			tab := make([]int64, 0, len(g.tab)/n)
			for o := 0; o < len(g.tab); o += n * inner {
				tab = append(tab, g.tab[o+c*inner:o+c*inner+inner]...)
			}
			g = &factor{
				vars: slices.Delete(slices.Clone(g.vars), j, j+1),
				cls:  slices.Delete(slices.Clone(g.cls), j, j+1),
				n:    slices.Delete(slices.Clone(g.n), j, j+1),
				tab:  tab,
			}
		}
		if len(g.vars) == 0 {
			constant = add(constant, g.tab[0])
			continue
		}
		out = append(out, g)
	}
	return out, constant
}

// tooLarge is a tensor's factor still past ExactBound entries after the
// bound's first stage: exact refuses, and says so.
type tooLarge struct {
	name string // the tensor
	size float64
	vars int
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("the table of %s (the ops that make and read it: %d) has %.0f entries even over the signatures the LP bound's first stage kept, more than its bound of %d",
		e.name, e.vars, e.size, ExactBound)
}
