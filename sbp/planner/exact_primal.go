package planner

import (
	"slices"

	"github.com/stridelab/stridelab/sbp/minsum"
)

// The relaxation's bound can stall short of the best plan tighten knows
// (U) while U is itself not the optimum: rounding the relaxation op by
// op, and moving one op at a time (improve), miss a better plan that
// changes several ops together. Then few candidates pass U, tighten
// drops almost nothing, and the elimination of the rest is too large.
// On GPT-2 imported with gather embeddings (docs/performance.md) the
// bound stalled at 12.18 ms under a U of 12.46 ms, and the optimum
// was under 12.2 ms: the embedding's gradient (a scatter-add whose ids,
// gradient and output split in several ways) takes a joint change of
// its ops.
//
// restrictedPlan is a primal heuristic for that (an LP-guided search of
// a neighbourhood of the best plan, as MIP solvers' relaxation-induced
// neighbourhoods are): the elimination over each variable's candidate in
// the best plan and those whose bound is within a share α of the gap
// above the bound (its least-bound one at least), solved exactly, its
// plan improved and priced in full; again from a better plan, while one
// is found. The neighbourhood is small, so its elimination fits where the
// whole's does not; it holds the best plan, so what it finds is no worse;
// and its plan is a plan, so its price is an upper bound, and a lower U
// lets the bound drop what the whole search could not.
//
// primalShares are the α tried, smallest first, and primalWork bounds
// each one's elimination (entries filled).
var primalShares = []float64{0, 0.05, 0.2}

// primalRounds bounds how many times restrictedPlan searches again from
// the better plan it found.
const primalRounds = 4

const primalWork = ExactWork / 4

// primalAlways makes tighten search a neighbourhood after its passes
// whether or not the bound stalled: the tests set it to check that the
// plans it finds never change the optimum.
var primalAlways = false

// restrictedPlan returns a plan cheaper than upper (a candidate per
// node, priced best) and its price, or ok false. bs are the candidates'
// bounds (Relaxation.CandidateBounds) over the factors fs, kept what each
// of fs's candidates stands for, lbTotal the bound with the constant
// factors' sum.
func (pl *planner) restrictedPlan(fs []*minsum.Factor, bs [][]float64, kept [][]int, vars []int, constant int64, lbTotal float64, upper []int, best float64) (int64, []int, bool) {
	var found []int
	incumbent := slices.Clone(upper)
	price := int64(best)
	for range primalRounds {
		better := false
		for _, share := range primalShares {
			c, choice, ok := pl.neighbourhood(fs, bs, kept, vars, constant, lbTotal+share*(float64(price)-lbTotal), incumbent)
			if ok && c < price {
				price, found, incumbent, better = c, choice, choice, true
				break
			}
		}
		if !better {
			break
		}
	}
	return price, found, found != nil
}

// neighbourhood is restrictedPlan's search of one neighbourhood: each
// variable's candidates whose bound (with the constant) is at most
// limit, its least-bound one, and incumbent's (the split tensors' copy
// flags whole), solved exactly and improved.
func (pl *planner) neighbourhood(fs []*minsum.Factor, bs [][]float64, kept [][]int, vars []int, constant int64, limit float64, incumbent []int) (int64, []int, bool) {
	alive := make([][]bool, len(bs))
	for v, b := range bs {
		alive[v] = make([]bool, len(b))
		least := 0
		for k := range b {
			if b[k] < b[least] {
				least = k
			}
			alive[v][k] = b[k]+float64(constant) <= limit || v >= len(vars)
		}
		alive[v][least] = true
		if v < len(vars) {
			if k := slices.Index(kept[v], incumbent[vars[v]]); k >= 0 {
				alive[v][k] = true
			}
		}
	}
	sub := make([][]int, len(kept))
	dom := make([]int, len(kept))
	for v := range kept {
		sub[v] = slices.Clone(kept[v])
		dom[v] = len(kept[v])
	}
	r := minsum.NewRelaxation(fs, dom)
	r.Restrict(alive, sub)
	for v := range sub {
		dom[v] = len(sub[v])
	}
	rfs, _ := minsum.FixSingles(r.Factors, dom)
	order, big, _, _, ok, err := minsum.Order(rfs, dom, primalWork, pl.poll)
	if err != nil || !ok || big > ExactBound {
		return 0, nil, false
	}
	minsum.Prune(rfs, dom, nil)
	value, _, err := minsum.Solve(rfs, dom, order, pl.poll)
	if err != nil {
		return 0, nil, false
	}
	choice := make([]int, len(pl.g.Nodes))
	for i := range choice {
		choice[i] = -1
	}
	for v, node := range vars {
		choice[node] = sub[v][value[v]]
	}
	return pl.improve(choice, vars, kept), choice, true
}
