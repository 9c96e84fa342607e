package planner

import (
	"errors"
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// autoLayouts are the layouts the planner may pick for an input written
// auto of shape on p: every nd-SBP of B and S(d) per mesh dim that
// sbp.Validate takes (never a partial: an input holds values, not parts
// of a sum), all-B first, which greedy takes as OneFlow's default does.
func autoLayouts(shape tensor.Shape, p sbp.Placement) []sbp.NdSbp {
	per := []sbp.SBP{sbp.B}
	for d := range shape {
		per = append(per, sbp.S(d))
	}
	var out []sbp.NdSbp
	choice := make([]int, p.MeshRank())
	for {
		nd := make(sbp.NdSbp, len(choice))
		for m, c := range choice {
			nd[m] = per[c]
		}
		if sbp.Validate(shape, p, nd) == nil {
			out = append(out, nd)
		}
		if !sbp.NextChoice(choice, len(per)) {
			return out
		}
	}
}

// autoCands gives every input written auto its candidates (one per
// layout of autoLayouts: no inputs, the layout as its output), and
// every node its decider: the node whose candidate sets its layout (an
// op and an auto input themselves; an auto input's final gradient, a
// box or a zero laid out as the input, that input; -1 for the rest).
func (pl *planner) autoCands() {
	pl.decider = make([]int, len(pl.g.Nodes))
	auto := map[string]int{}
	for i, n := range pl.g.Nodes {
		pl.decider[i] = -1
		switch {
		case n.Kind == graph.KindOp:
			pl.decider[i] = i
		case n.Kind == graph.KindInput && n.Auto:
			for _, nd := range autoLayouts(n.Shape, pl.p) {
				pl.cands[i] = append(pl.cands[i], cand{out: pl.id(nd)})
			}
			pl.decider[i], auto[n.Name] = i, i
		case (n.Kind == graph.KindBox || n.Kind == graph.KindZeros) && n.GradOf != "":
			if a, ok := auto[n.GradOf]; ok {
				pl.decider[i] = a
			}
		}
	}
}

// deciding is the candidate that sets node i's layout under choice, or
// -1 when nothing does (its layout is its own).
func (pl *planner) deciding(i int, choice []int) int {
	if d := pl.decider[i]; d >= 0 {
		return choice[d]
	}
	return -1
}

// staticBytes is what auto input i laid out as candidate k holds on the
// rank holding the most, for the whole step: its shard, its final
// gradient's (laid out as it is, or split evenly under ZeRO-2) and the
// optimizer's state for it (optimizerState's rule). The memory bound's
// Lagrangian prices it (fitMemory).
func (pl *planner) staticBytes(i, k int) int64 {
	n := pl.g.Nodes[i]
	nd := pl.nds[pl.cands[i][k].out]
	prec := pl.prec[pl.out[i]]
	width := int64(prec.Bytes())
	param, err := shardBytes(n.Shape, width, pl.p, nd)
	if err != nil {
		return 0
	}
	grad, state := param, make([]int64, len(param))
	if n.Const {
		grad = state // data: no gradient
	}
	opt := pl.g.Prog.Optimizer
	if opt != nil && opt.ZeRO >= 2 && !n.Const {
		grad, _ = evenBytes(n.Shape, width, pl.p)
	}
	if opt != nil && !n.Const {
		if elems, err := elementsHeld(n.Shape, pl.p, nd, opt.ZeRO >= 1); err == nil {
			for r, e := range elems {
				state[r] = e * opt.StateBytes(prec)
			}
		}
	}
	var most int64
	for r := range param {
		most = max(most, param[r]+grad[r]+state[r])
	}
	return most
}

// fitRounds bounds fitMemory's exact searches: the price grows fourfold
// until a plan fits (at most 2^(2·fitRounds) times its start), then
// halves the gap to the price that did not as many times again.
const fitRounds = 12

// fitMemory returns exact's plan where every rank's peak fits the
// cluster's memory, else the plan of least time found that fits, or why
// none does. The bound is a max over ranks and steps, no sum over the
// program's factors, so the elimination cannot carry it; a Lagrangian
// relaxation prices it instead (Fisher, "The Lagrangian relaxation
// method for solving integer programming problems", 1981), on the part of
// the memory the auto inputs decide: each auto input's candidate pays
// λ times what it holds on its fullest rank for the whole step
// (staticBytes: its shard, its gradient's, the optimizer's state), in
// picoseconds a byte. λ starts where the first plan's whole peak would
// cost its whole time, grows fourfold until a plan fits, then bisects
// down towards the least λ that fits, keeping the fitting plan of least
// time. Each λ is one exact search of the priced program. It is a
// heuristic for the bound (the λ that fits is an upper bound on what the
// constraint costs, not a proof of the optimum under it); what it
// returns always fits, and what it refuses names the smallest peak it
// found.
func (pl *planner) fitMemory(first *run, firstChoice []int) (*run, []int, error) {
	capacity := int64(pl.clu.Device.MemCapacity)
	peakOf := func(r *run) int64 {
		var most int64
		for _, s := range r.steps {
			for _, b := range s.HeldBytes {
				most = max(most, b)
			}
		}
		return most
	}
	least, leastPeak := first, peakOf(first)
	if leastPeak <= capacity {
		return first, firstChoice, nil
	}
	defer func() { pl.lambda = 0 }()
	solve := func(lam float64) (*run, []int, error) {
		pl.lambda = lam
		choice, refused, err := pl.exact(ExactBound, ExactWork, false, firstChoice)
		if err != nil || refused != "" {
			return nil, nil, err
		}
		r, err := pl.simulate(choice)
		return r, choice, err
	}
	t := timing(first.steps).TimeS
	lo, hi := 0.0, t/picosecond/float64(leastPeak)
	var best *run
	var bestChoice []int
	for range fitRounds {
		r, c, err := solve(hi)
		if err != nil {
			return nil, nil, err
		}
		if r != nil {
			if p := peakOf(r); p <= capacity {
				best, bestChoice = r, c
				break
			} else if p < leastPeak {
				least, leastPeak = r, p
			}
		}
		lo, hi = hi, hi*4
	}
	if best == nil {
		plan := &Plan{Program: pl.g.Prog, Steps: least.steps, Grads: map[string]string{}}
		for name, g := range pl.g.Grads {
			plan.Grads[name] = least.resolve(g)
		}
		err := plan.Capacity(capacity, pl.clu.Name+" device")
		var pe *program.Error
		if errors.As(err, &pe) {
			pe.Err = fmt.Errorf("no layout of the auto inputs fits (the smallest peak found): %w", pe.Err)
		}
		return nil, nil, err
	}
	for range fitRounds / 2 {
		mid := (lo + hi) / 2
		r, c, err := solve(mid)
		if err != nil {
			return nil, nil, err
		}
		if r != nil && peakOf(r) <= capacity {
			hi = mid
			if timing(r.steps).TimeS < timing(best.steps).TimeS {
				best, bestChoice = r, c
			}
		} else {
			lo = mid
		}
	}
	return best, bestChoice, nil
}

// hasAuto reports whether some input is written auto.
func (pl *planner) hasAuto() bool {
	for i, n := range pl.g.Nodes {
		if n.Kind == graph.KindInput && pl.cands[i] != nil {
			return true
		}
	}
	return false
}
