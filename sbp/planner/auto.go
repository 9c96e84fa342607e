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
// The parts follow the memory walk's own rules (valueBytes,
// parameterState); each candidate's is worked out once.
func (pl *planner) staticBytes(i, k int) int64 {
	if pl.static == nil {
		pl.static = map[int][]int64{}
	}
	if _, ok := pl.static[i]; !ok {
		pl.static[i] = make([]int64, len(pl.cands[i]))
		n, opt := pl.g.Nodes[i], pl.g.Prog.Optimizer
		for c := range pl.cands[i] {
			s := Step{Kind: StepInput, Pass: graph.Forward, Shape: n.Shape, Sbp: pl.nds[pl.cands[i][c].out], Const: n.Const, Precision: pl.prec[pl.out[i]]}
			param, err := valueBytes(pl.p, s, false)
			if err != nil {
				continue
			}
			grad, state := make([]int64, len(param)), make([]int64, len(param))
			if s.IsParameter() {
				grad, _ = valueBytes(pl.p, s, opt != nil && opt.ZeRO >= 2)
				state, _ = parameterState(pl.p, s, opt)
			}
			for r := range param {
				pl.static[i][c] = max(pl.static[i][c], param[r]+grad[r]+state[r])
			}
		}
	}
	return pl.static[i][k]
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
	peakOf := func(r *run) int64 { return (&Plan{Steps: r.steps}).MostHeld() }
	least, leastPeak := first, peakOf(first)
	if leastPeak <= capacity {
		return first, firstChoice, nil
	}
	defer func() { pl.lambda = 0 }()
	solve := func(lam float64) (*run, []int, error) {
		pl.lambda = lam
		answer, err := pl.exact(ExactBound, ExactWork, false, firstChoice)
		if err != nil || answer.refused != "" {
			return nil, nil, err
		}
		r, err := pl.simulate(answer.choice)
		return r, answer.choice, err
	}
	t := timing(first.steps).TimeS
	lo, hi := 0.0, t/picosecond/float64(leastPeak)
	var best *run
	var bestChoice []int
	var bestTime float64
	for range fitRounds {
		r, c, err := solve(hi)
		if err != nil {
			return nil, nil, err
		}
		if r != nil {
			if p := peakOf(r); p <= capacity {
				best, bestChoice, bestTime = r, c, timing(r.steps).TimeS
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
			if t := timing(r.steps).TimeS; t < bestTime {
				best, bestChoice, bestTime = r, c, t
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
