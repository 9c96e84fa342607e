package planner

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp/minsum"
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
// far apart they are; splitFactor replaces such a factor by
// one binary variable per layout its readers could need ("a copy in that
// layout is made"), a hub over the source and those variables, and a
// pair per reader and layout, wherever that is exact (the hub is
// monotone) and smaller. The width is then the most variables one table
// joins: ops, and the copy flags of split tensors.

// directWork is the most table entries the elimination fills on the
// whole space before tighten bounds it first: below it the elimination
// is quicker than the bound.
const directWork = 1 << 20

// tightenAlways makes exact bound every program first, however cheap its
// elimination: the tests set it to check tighten against enumeration on
// programs small enough to enumerate.
var tightenAlways = false

// proveNever makes exact answer tighten's plan unproven, as though the
// elimination over what tighten kept passed its bounds: the tests set it
// (with tightenAlways) to check the gap against enumeration.
var proveNever = false

// weight is a factor value: bytes above, boxings in the low 16 bits, so
// that sums compare bytes first and boxings break ties.
func weight(bytes int64, boxings int) int64 { return bytes<<16 + int64(boxings) }

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
// Where the relaxation's bound ran first (tighten) and the elimination
// over what it kept would still pass those bounds, exact answers the
// cheapest plan the bound's search found instead of refusing, with how
// far above the optimum it may be (exactAnswer.gap).
//
// It stops with the context's error, polled by pl.poll, when that ends
// first.
func (pl *planner) exact(bound, total int, keystroke bool, upper []int) (exactAnswer, error) {
	var vars []int // variable → node
	varOf := make([]int, len(pl.g.Nodes))
	for i := range pl.g.Nodes {
		varOf[i] = -1
		if pl.cands[i] != nil {
			varOf[i] = len(vars)
			vars = append(vars, i)
		}
	}
	for i, d := range pl.decider {
		if d >= 0 && d != i { // an auto input's final gradient: the input's variable
			varOf[i] = varOf[d]
		}
	}
	dom := make([]int, len(vars))
	for v, i := range vars {
		dom[v] = len(pl.cands[i])
	}
	var fs []*minsum.Factor
	constant, work, width, biggest := int64(0), 0.0, 0, 0.0
	deferrable := 0.0 // the entries of the joined factors tightenStaged defers
	var fills []func() error
	var tensorOf []int // per factor, the tensor whose joined factor it is (-1: a split's part)
	for x := range len(pl.names) {
		f, fill := pl.tensorFactor(x, pl.scope(x, varOf), varOf, dom, nil)
		size := 1.0
		for _, n := range f.N {
			size *= float64(n)
		}
		split, d, err := pl.splitFactor(x, size, float64(total)-work, varOf, dom)
		if err != nil {
			return exactAnswer{}, err
		}
		if split != nil {
			dom = d
			for _, f := range split {
				width, biggest = max(width, len(f.Vars)), max(biggest, float64(len(f.Tab)))
				work += float64(len(f.Tab))
				fs = append(fs, f)
				fills = append(fills, func() error { return nil })
				tensorOf = append(tensorOf, -1)
			}
			continue
		}
		work += size
		if len(f.Vars) == 0 {
			if err := fill(); err != nil {
				return exactAnswer{}, err
			}
			constant = minsum.Add(constant, f.Tab[0])
			continue
		}
		width, biggest = max(width, len(f.Vars)), max(biggest, size)
		if size > float64(deferAbove) {
			deferrable += size
		}
		fs = append(fs, f)
		fills = append(fills, fill)
		tensorOf = append(tensorOf, x)
	}
	if pl.cost == Time {
		// Each op's own time under each candidate: a factor over the op.
		for v, i := range vars {
			f := &minsum.Factor{Vars: []int{v}, Cls: [][]int32{make([]int32, dom[v])}}
			seen := map[int64]int32{}
			for k := range dom[v] {
				t := weight(pl.opCost(i, k), 0)
				c, ok := seen[t]
				if !ok {
					c = int32(len(f.Tab))
					seen[t] = c
					f.Tab = append(f.Tab, t)
				}
				f.Cls[0][k] = c
			}
			f.N = []int{len(f.Tab)}
			work += float64(len(f.Tab))
			fs = append(fs, f)
			fills = append(fills, func() error { return nil })
			tensorOf = append(tensorOf, -1)
		}
	}
	beyond := fmt.Sprintf("more than its bound of %d", total)
	if keystroke {
		beyond = fmt.Sprintf("more than the %d a plan rebuilt on every keystroke computes: plan with the exact strategy", total)
	}
	refuse := func() string {
		if biggest <= float64(bound) {
			return fmt.Sprintf("the elimination's tables have %.0f entries to fill in all (%d variables at most in one), %s", work, width, beyond)
		}
		return fmt.Sprintf("the elimination's largest table has %.0f entries (%d variables in one table, the width of the elimination), more than its bound of %d", biggest, width, bound)
	}
	// A table past bound refuses at once on a keystroke; else the bound
	// below leaves it out of its first stage and fills it over what that
	// stage keeps (tightenStaged), and refuses only if it is still past:
	// the work that counts before it is the rest's.
	if keystroke && (work > float64(total) || biggest > float64(bound)) || work-deferrable > float64(total) {
		return exactAnswer{refused: refuse()}, nil
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
		if order, oBiggest, oWidth, oWork, found, err = minsum.Order(fs, dom, direct, pl.poll); err != nil {
			return exactAnswer{}, err
		}
	}
	var kept [][]int // per variable, the candidates tighten kept (nil: all)
	note := ""       // what tighten did, for a refusal
	var best []int   // the cheapest plan tighten found, and the bound it proved
	lower := 0.0
	if (!found || oBiggest > float64(bound)) && !keystroke {
		before := 0
		for _, d := range dom {
			before += d
		}
		best = slices.Clone(upper)
		if fs, dom, kept, lower, err = pl.tightenStaged(fs, fills, tensorOf, dom, constant, varOf, vars, best); err != nil {
			if e, ok := err.(*tooLarge); ok {
				return pl.unproven(best, lower, e.Error()), nil
			}
			return exactAnswer{}, err
		}
		if proveNever {
			return pl.unproven(best, lower, "proveNever is set"), nil
		}
		var fixed int64
		fs, fixed = minsum.FixSingles(fs, dom)
		constant, fills = minsum.Add(constant, fixed), nil
		after := 0
		for _, d := range dom {
			after += d
		}
		note = fmt.Sprintf("after the LP bound kept %d of %d candidates, ", after, before)
		width, biggest, work = 0, 0, 0 // the rest's own
		for _, f := range fs {
			width, biggest, work = max(width, len(f.Vars)), max(biggest, float64(len(f.Tab))), work+float64(len(f.Tab))
		}
		if order, oBiggest, oWidth, oWork, found, err = minsum.Order(fs, dom, float64(total)-work, pl.poll); err != nil {
			return exactAnswer{}, err
		}
	}
	width, biggest, work = max(width, oWidth), max(biggest, oBiggest), work+oWork
	if !found { // every order passed total
		if keystroke {
			return exactAnswer{refused: fmt.Sprintf("every elimination order tried fills more than the %d table entries a plan rebuilt on every keystroke computes: plan with the exact strategy", total)}, nil
		}
		why := fmt.Sprintf("%severy elimination order tried fills more than %d table entries in all, the exact search's bound", note, total)
		if best != nil {
			return pl.unproven(best, lower, why), nil
		}
		return exactAnswer{refused: why}, nil
	}
	if biggest > float64(bound) || work > float64(total) {
		if best != nil {
			return pl.unproven(best, lower, note+refuse()), nil
		}
		return exactAnswer{refused: note + refuse()}, nil
	}
	if err := fill(); err != nil {
		return exactAnswer{}, err
	}
	minsum.Prune(fs, dom, nil)
	value, rest, err := minsum.Solve(fs, dom, order, pl.poll)
	if err != nil {
		return exactAnswer{}, err
	}
	if minsum.Add(constant, rest) >= minsum.Infinite {
		return exactAnswer{refused: "no assignment of signatures has boxings sbp can plan"}, nil
	}
	choice := make([]int, len(pl.g.Nodes))
	for i := range choice {
		choice[i] = -1
		if v := varOf[i]; v >= 0 && vars[v] == i { // not an auto input's gradient: its input holds the choice
			choice[i] = value[v]
			if kept != nil {
				choice[i] = kept[v][value[v]]
			}
		}
	}
	return exactAnswer{choice: choice}, nil
}

// exactAnswer is what the exact search answers: a plan proven the
// cheapest, a plan not proven, or a refusal.
type exactAnswer struct {
	choice  []int  // the candidate of every node, -1 for a node that is not an op; nil when refused
	refused string // why there is no plan, or ""
	// unproven says, where choice is not proven the cheapest, why the
	// elimination that would prove it was not run; gap is then the share
	// of choice's price the optimum may lie below it, (price − bound) /
	// price, the bound the relaxation's (tighten). An LP bound is how a
	// MIP solver reports an incumbent it has not proven (its "gap").
	unproven string
	gap      float64
}

// unproven answers best (a plan tighten found, priced by planCost) where
// the elimination that would prove the optimum passes its bounds (why),
// with its gap to lower, the bound tighten proved; a refusal where best
// is no plan.
func (pl *planner) unproven(best []int, lower float64, why string) exactAnswer {
	price := pl.planCost(best)
	if price >= minsum.Infinite {
		return exactAnswer{refused: why}
	}
	gap := 0.0
	if p := float64(price); p > 0 && lower < p {
		gap = (p - lower) / p
	}
	return exactAnswer{choice: best, unproven: why, gap: gap}
}
