package planner

import (
	"fmt"
	"math"
	"slices"

	"github.com/stridelab/stridelab/sbp/minsum"
)

// tighten runs the relaxation (minsum.Relaxation) and drops what it proves in no
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

// tighten drops the candidates in no optimal plan (those whose bound
// passes U, the cheapest plan it knows: upper's, a choice by node, or
// one rounded from the relaxation and improved, which then replaces
// upper) and returns the
// factors, domains and, per variable, the candidates kept (kept[v][k']
// is the candidate k' stands for). constant is the cost of the factors
// over no variable; vars maps a variable that is an op to its node
// (split tensors' copy flags come after them). kept, when not nil, is
// what fs's candidates stand for already (an earlier tighten's), and is
// narrowed in place, and the bound it proved on every plan's price
// (with the constant). Each table entry a pass
// touches is a unit of work for pl.poll; work is their number.
func (pl *planner) tighten(fs []*minsum.Factor, dom []int, constant int64, vars []int, upper []int, kept [][]int) ([]*minsum.Factor, []int, [][]int, float64, error) {
	r := minsum.NewRelaxation(fs, dom)
	sc := r.Scratch(dom)
	if kept == nil {
		kept = make([][]int, len(dom))
		for v := range kept {
			for k := range dom[v] {
				kept[v] = append(kept[v], k)
			}
		}
	}
	best := math.Inf(1)
	if c := pl.planCost(upper); c < minsum.Infinite {
		best = float64(c)
	}
	lb := r.Bound()
	var last []int // the last rounding, by node
	for p := range boundPasses {
		before := r.Work
		r.Pass(p%2 == 0, sc)
		if err := pl.poll.Tick(int(r.Work - before)); err != nil {
			return nil, nil, nil, 0, err
		}
		if p%boundEvery != boundEvery-1 && r.Work < boundWork {
			continue
		}
		next := r.Bound()
		converged := next-lb <= boundGain*(best-float64(constant)-next)
		lb = next
		value := r.Decode(len(vars), sc)
		choice := make([]int, len(pl.g.Nodes))
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
		} else if c := pl.improve(choice, vars, kept); c < minsum.Infinite && float64(c) < best {
			best = float64(c)
			copy(upper, choice)
		}
		bs := r.CandidateBounds(lb, sc)
		alive := make([][]bool, len(dom))
		dropped := 0
		for v, b := range bs {
			alive[v] = make([]bool, len(b))
			for k := range b {
				alive[v][k] = b[k]+float64(constant) <= best+minsum.Slack(best)
				if !alive[v][k] {
					dropped++
				}
			}
		}
		if dropped > 0 {
			r.Restrict(alive, kept)
			lb = r.Bound()
		}
		if lb+float64(constant) > best-1+minsum.Slack(best) || converged && dropped == 0 || r.Work >= boundWork {
			break
		}
	}
	// Where the bound stalled short of U, a better plan from a small
	// exact search near the relaxation's (restrictedPlan) lowers U, and
	// what the bound shows cannot beat it is dropped.
	if primalAlways || lb+float64(constant) <= best-1+minsum.Slack(best) {
		bs := r.CandidateBounds(lb, sc)
		if c, choice, ok := pl.restrictedPlan(r.Factors, bs, kept, vars, constant, lb+float64(constant), upper, best); ok && float64(c) < best {
			best = float64(c)
			copy(upper, choice)
			alive := make([][]bool, len(bs))
			for v, b := range bs {
				alive[v] = make([]bool, len(b))
				for k := range b {
					alive[v][k] = b[k]+float64(constant) <= best+minsum.Slack(best)
				}
			}
			r.Restrict(alive, kept)
		}
	}
	out := make([]*minsum.Factor, len(r.Factors))
	ndom := make([]int, len(kept))
	for v := range kept {
		ndom[v] = len(kept[v])
	}
	copy(out, r.Factors)
	return out, ndom, kept, r.Bound() + float64(constant), nil
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
// factors left out. It returns what tighten does, with the bound of
// the last stage run. A factor left out that is still over ExactBound
// entries over what the first stage kept is a *tooLarge, returned with
// the first stage's bound (a bound still: the factors left out are never
// negative).
func (pl *planner) tightenStaged(fs []*minsum.Factor, fills []func() error, tensorOf []int, dom []int, constant int64, varOf, vars, upper []int) ([]*minsum.Factor, []int, [][]int, float64, error) {
	var now []*minsum.Factor
	var later []int // tensors
	skip := make([]bool, len(dom))
	for i, f := range fs {
		size := 1.0 // in float64: a wide factor's entries pass any int
		for _, n := range f.N {
			size *= float64(n)
		}
		if size > float64(deferAbove) && tensorOf[i] >= 0 {
			later = append(later, tensorOf[i])
			for _, v := range f.Vars {
				skip[v] = true
			}
			continue
		}
		if err := fills[i](); err != nil {
			return nil, nil, nil, 0, err
		}
		now = append(now, f)
	}
	// The factors left out stand in the first stage as their reads'
	// lower bounds (readLowerBounds), dropped after it: the last ones.
	stand := 0
	for _, x := range later {
		lb := pl.readLowerBounds(x, varOf, dom)
		now, stand = append(now, lb...), stand+len(lb)
	}
	minsum.Prune(now, dom, skip)
	fs, dom, kept, bound, err := pl.tighten(now, dom, constant, vars, upper, nil)
	if err != nil || len(later) == 0 {
		return fs, dom, kept, bound, err
	}
	fs = fs[:len(fs)-stand]
	for _, x := range later {
		f, fill := pl.tensorFactor(x, pl.scope(x, varOf), varOf, dom, kept)
		size := 1.0
		for _, n := range f.N {
			size *= float64(n)
		}
		if size > ExactBound {
			return nil, nil, nil, bound, &tooLarge{name: pl.g.Nodes[pl.def[x]].Name, size: size, vars: len(f.Vars)}
		}
		if err := fill(); err != nil {
			return nil, nil, nil, 0, err
		}
		fs = append(fs, f)
	}
	minsum.Prune(fs, dom, nil)
	return pl.tighten(fs, dom, constant, vars, upper, kept)
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
