package planner

import (
	"slices"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/minsum"
)

// A plan's total and single-op moves: the upper bound tighten compares
// the relaxation's bounds with.

// planCost is the total of the plan that runs the ops as choice (a
// candidate per op node, -1 elsewhere), in the exact search's weight:
// per tensor the cheapest tree of boxings from its layout to its
// readers' needs (copyPlan), summed, and under Cost Time every op's own
// time (opCost); minsum.Infinite where a boxing cannot be planned. It equals
// the sum of the search's factors on that choice.
func (pl *planner) planCost(choice []int) int64 {
	total := int64(0)
	for x := range len(pl.names) {
		total = minsum.Add(total, pl.tensorCost(x, choice))
	}
	for i, k := range choice {
		if k >= 0 {
			total = minsum.Add(total, weight(pl.opCost(i, k), 0))
		}
	}
	return total
}

// tensorCost is tensor x's part of planCost.
func (pl *planner) tensorCost(x int, choice []int) int64 {
	t := pl.copyPlan(x, pl.srcLayout(x, choice[pl.srcNode(x)]), pl.needs(x, choice))
	if t.err != nil {
		return minsum.Infinite
	}
	return weight(t.bytes, t.boxings)
}

// srcNode is the node whose choice lays out name x: its definition's
// decider (an auto input's for its final gradient), or for the
// backward's seed the definition of the result it seeds.
func (pl *planner) srcNode(x int) int {
	n := pl.g.Nodes[pl.def[x]]
	if n.Kind == graph.KindOnes {
		return pl.srcNode(pl.names[n.SeedOf])
	}
	if d := pl.decider[pl.def[x]]; d >= 0 {
		return d
	}
	return pl.def[x]
}

// improve moves one op at a time to its cheapest candidate among those
// kept (kept[v], v the op's variable; vars maps variables to nodes),
// the tensors it lays out or reads repriced, until no move gains (a few
// rounds), and returns the plan's total. choice is changed in place.
func (pl *planner) improve(choice []int, vars []int, kept [][]int) int64 {
	touch := pl.touches()
	local := func(i int) int64 {
		s := weight(pl.opCost(i, choice[i]), 0)
		for _, x := range touch[i] {
			s = minsum.Add(s, pl.tensorCost(x, choice))
		}
		return s
	}
	for range improveRounds {
		moved := false
		for v, i := range vars {
			was := choice[i]
			best, at := local(i), was
			for _, k := range kept[v] {
				if k == was {
					continue
				}
				choice[i] = k
				if c := local(i); c < best {
					best, at = c, k
				}
			}
			choice[i] = at
			moved = moved || at != was
		}
		if !moved {
			break
		}
	}
	return pl.planCost(choice)
}

// improveRounds bounds improve's rounds over every op.
const improveRounds = 8

// touches returns, per node, the tensors its choice prices (those it
// lays out or reads), worked out on first use: tighten improves a plan
// at every rounding.
func (pl *planner) touches() [][]int {
	if pl.touch != nil {
		return pl.touch
	}
	pl.touch = make([][]int, len(pl.g.Nodes))
	for x := range len(pl.names) {
		if s := pl.srcNode(x); pl.cands[s] != nil {
			pl.touch[s] = append(pl.touch[s], x)
		}
		for _, r := range pl.readers[x] {
			// the reader's decider: an op itself, an auto input for the box of its gradient
			if d := pl.decider[r.node]; d >= 0 && pl.cands[d] != nil && !slices.Contains(pl.touch[d], x) {
				pl.touch[d] = append(pl.touch[d], x)
			}
		}
	}
	return pl.touch
}
