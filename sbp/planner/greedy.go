package planner

import (
	"fmt"
	"math"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/tensor"
)

// greedy is OneFlow's eager SBP inference, op by op in program order, as
// its source does it (docs/planner-sources.md §1; the names below are
// OneFlow's functions). Each op sees only its producers' layouts (the
// "hints"), never what comes later. Its list is sbp.EagerSignatures
// (the op's GetSbp list, then all-B; stridelab's extra signatures, such
// as expand's B -> S(d), are for the exact planner only). Then, as
// Operator::InferNdSbpSignature branches on the mesh's rank:
//
//   - a 1-D mesh of n devices (Operator::InferSbpSignature and
//     SortSbpSignatureListByCopyCost): drop the signatures that split an
//     input axis shorter than n; rank the rest by their order value (−10
//     per input whose producer's SBP equals the signature's) and then by
//     the legacy copy cost (ComputCopyCostBetweenTwoSbpParallel of
//     sbp_parallel.cpp, legacyCost); take the first of the lowest (a
//     stable sort);
//   - a mesh of 2 or more dims (GetNdSbpSignatureList, then
//     FilterNdSbpSignatureListByLogicalShape, then
//     Operator::GreedilyFindMinCopyCostNdSbp): the product of the 1-D
//     lists, mesh dim 0 outermost; drop the signatures whose inputs do
//     not fit their splits, each overwritten by the last and popped, from
//     the tail; then the first signature every input's producer matches,
//     else the first whose total eager copy cost
//     (ComputeEagerCopyCostBetweenNdSbp, eagerCost) is lowest by more
//     than OneFlow's relative 1e-7.
//
// A signature whose layouts stridelab cannot hold (an output split along
// an axis too short, which OneFlow does not check) is dropped after
// OneFlow's own filters. The chosen boxings are then planned, and
// reported, in stridelab's bytes (sbp.PlanBoxing), as every boxing is.
// O(L·k·s) for L ops of k inputs and s signatures (s = l^d on a d-dim
// mesh of l signatures per dim).
func (pl *planner) greedy() ([]int, error) {
	choice := make([]int, len(pl.g.Nodes))
	lay := make([]int, len(pl.names))
	for i, n := range pl.g.Nodes {
		if err := pl.poll.Tick(1); err != nil {
			return nil, err
		}
		choice[i] = -1
		switch {
		case n.Kind == graph.KindOp:
			k, err := pl.eagerChoice(i, lay)
			if err != nil {
				return nil, pl.fault(n, err)
			}
			choice[i] = k
		case pl.cands[i] != nil:
			choice[i] = 0 // an auto input: B, OneFlow's default (autoLayouts' first)
		}
		lay[pl.out[i]] = pl.layoutOf(i, pl.deciding(i, choice), lay)
	}
	return choice, nil
}

// eagerChoice is OneFlow's pick for op node i whose producers left the
// layouts lay: the index of its candidate.
func (pl *planner) eagerChoice(i int, lay []int) (int, error) {
	n := pl.g.Nodes[i]
	shapes := make([]tensor.Shape, len(n.Args))
	for j, a := range n.Args {
		shapes[j] = pl.g.Lookup(a).Shape
	}
	hints := make([]sbp.NdSbp, len(n.Args))
	for j, x := range pl.args[i] {
		hints[j] = pl.nds[lay[x]]
	}
	list := eagerList(sbp.EagerSignatures(n.Op, shapes), shapes, pl.p)
	// stridelab's filter: the signatures it can run, as candidates.
	index := map[string]int{}
	for k, c := range pl.cands[i] {
		index[fmt.Sprint(c.in, c.out)] = k
	}
	var ks []int
	var kept [][]sbp.NdSbp
	for _, s := range list {
		ids := make([]int, len(s)-1)
		for j := range ids {
			ids[j] = pl.id(s[j])
		}
		if k, ok := index[fmt.Sprint(ids, pl.id(s[len(s)-1]))]; ok {
			ks, kept = append(ks, k), append(kept, s)
		}
	}
	if len(kept) == 0 {
		return -1, fmt.Errorf("%s: none of OneFlow's signatures fits these shapes on %v", n.Op, pl.p)
	}
	bytes := make([]float64, len(shapes))
	for j, s := range shapes {
		e, _ := s.NumElements()
		bytes[j] = float64(e) * float64(pl.prec[pl.args[i][j]].Bytes()) // OneFlow's copy cost counts a blob's bytes
	}
	var pick int
	if pl.p.MeshRank() == 1 {
		pick = sortByCopyCost(kept, hints, bytes)
	} else {
		var ok bool
		if pick, ok = minCopyCostNd(kept, hints, bytes, pl.p); !ok {
			return -1, fmt.Errorf("%s: OneFlow can't find an available sbp signature for inputs %v", n.Op, hints)
		}
	}
	return ks[pick], nil
}

// eagerList builds OneFlow's list of nd-signatures from the 1-D list
// sigs, each as its inputs' nd-SBPs then its output's, with OneFlow's
// filter by the inputs' shapes.
func eagerList(sigs []sbp.Signature, shapes []tensor.Shape, p sbp.Placement) [][]sbp.NdSbp {
	h := p.Hierarchy()
	if len(h) == 1 {
		var out [][]sbp.NdSbp
		for _, s := range sigs {
			if fitsSplits(s.In, shapes, h[0]) {
				out = append(out, ndOf(s.In, s.Out))
			}
		}
		return out
	}
	// DfsGetNdSbpSignature: mesh dim 0 outermost.
	var list [][]sbp.NdSbp
	pick := make([]int, len(h))
	for {
		nd := make([]sbp.NdSbp, len(shapes)+1)
		for j := range nd {
			nd[j] = make(sbp.NdSbp, len(h))
		}
		for m, c := range pick {
			for j := range shapes {
				nd[j][m] = sigs[c].In[j]
			}
			nd[len(shapes)][m] = sigs[c].Out
		}
		list = append(list, nd)
		if !sbp.NextChoice(pick, len(sigs)) {
			break
		}
	}
	// FilterNdSbpSignatureListByLogicalShape: from the tail, an invalid
	// entry is overwritten by the last and the last popped.
	for k := len(list) - 1; k >= 0; k-- {
		if !storageFits(list[k][:len(shapes)], shapes, h) {
			list[k] = list[len(list)-1]
			list = list[:len(list)-1]
		}
	}
	return list
}

func ndOf(in []sbp.SBP, out sbp.SBP) []sbp.NdSbp {
	nd := make([]sbp.NdSbp, 0, len(in)+1)
	for _, s := range in {
		nd = append(nd, sbp.NdSbp{s})
	}
	return append(nd, sbp.NdSbp{out})
}

// fitsSplits is FilterAndCheckValidSbpSignatureListByLogicalShape's test
// on a 1-D mesh of n: every input split along an axis of at least n.
func fitsSplits(in []sbp.SBP, shapes []tensor.Shape, n int) bool {
	for j, s := range in {
		if s.Kind == sbp.Split && shapes[j][s.Axis] < n {
			return false
		}
	}
	return true
}

// storageFits is Storage4NdSbp's test: each mesh dim d that splits an
// input along an axis needs the axis, divided by the dims before it that
// split it, to be at least hierarchy[d].
func storageFits(in []sbp.NdSbp, shapes []tensor.Shape, h []int) bool {
	for j, nd := range in {
		shape := slices.Clone(shapes[j])
		for d, s := range nd {
			if s.Kind != sbp.Split {
				continue
			}
			if shape[s.Axis] < h[d] {
				return false
			}
			shape[s.Axis] /= h[d]
		}
	}
	return true
}

// sortByCopyCost is the 1-D pick: the signature of least order value,
// then least legacy copy cost, the first on ties (libstdc++'s insertion
// sort, which std::sort is for up to 16 entries, is stable).
func sortByCopyCost(list [][]sbp.NdSbp, hints []sbp.NdSbp, bytes []float64) int {
	best, bestOrder, bestCost := 0, 0, 0.0
	for k, s := range list {
		order, cost := 0, 0.0
		for j, h := range hints {
			if h[0] == s[j][0] {
				order -= 10
			}
			cost += legacyCost(h[0], s[j][0], bytes[j])
		}
		if k == 0 || order < bestOrder || order == bestOrder && cost < bestCost {
			best, bestOrder, bestCost = k, order, cost
		}
	}
	return best
}

// legacyCost is ComputCopyCostBetweenTwoSbpParallel of
// oneflow/core/job/sbp_parallel.cpp, the 1-D eager ranking's cost of
// boxing a blob of t bytes from p to c: 0 when equal, INT64_MAX into a
// partial, INT32_MAX from B, else t (no device count in it).
func legacyCost(p, c sbp.SBP, t float64) float64 {
	switch {
	case p == c:
		return 0
	case c.Kind == sbp.Partial:
		return math.MaxInt64
	case p.Kind == sbp.Broadcast:
		return math.MaxInt32
	}
	return t
}

// validMaxCopyCost is OneFlow's GetValidMaxCopyCost, 0.8·FLT_MAX: a
// signature must cost less to be picked.
const validMaxCopyCost = 0.8 * math.MaxFloat32

// minCopyCostNd is Operator::GreedilyFindMinCopyCostNdSbp with its
// default rule (SBP_INFER_RULE_TAG=1, kAllMatch): the first signature
// every input's producer matches exactly, else the first whose total
// eagerCost is lower than the best so far by a relative 1e-7
// (kFloatDeviationMinus). false when none costs less than
// validMaxCopyCost.
func minCopyCostNd(list [][]sbp.NdSbp, hints []sbp.NdSbp, bytes []float64, p sbp.Placement) (int, bool) {
	sel, minCost := -1, validMaxCopyCost
	for k, s := range list {
		total, same := 0.0, true
		for j, h := range hints {
			same = same && h.Equal(s[j])
			total += eagerCost(h, s[j], bytes[j], p)
		}
		if same {
			return k, true
		}
		if total < minCost*0.9999999 {
			sel, minCost = k, total
		}
	}
	return sel, sel >= 0
}

// eagerCost is ComputeEagerCopyCostBetweenNdSbp
// (oneflow/core/framework/sbp_infer_util.cpp) for a producer and a
// consumer on the same devices: the mesh dims reduced together
// (CollaborativeParallelDimReduce: size-1 dims dropped, a dim merged into
// the one before when both SBPs repeat); 0 when they then agree; on one
// reduced dim the 1-D cost of the whole group (sameDeviceCost); else 1
// plus, per dim, the 1-D cost with n the total device count, plus the
// partial penalty into a new P, plus t once when a split is kept under a
// dim that moves the same axis ("abnormal").
func eagerCost(prod, cons sbp.NdSbp, t float64, p sbp.Placement) float64 {
	h := p.Hierarchy()
	var rin, rout []sbp.SBP
	var rh []int
	for d := range h {
		if h[d] == 1 {
			continue
		}
		if k := len(rin) - 1; k >= 0 && rin[k] == prod[d] && rout[k] == cons[d] {
			rh[k] *= h[d]
			continue
		}
		rin, rout, rh = append(rin, prod[d]), append(rout, cons[d]), append(rh, h[d])
	}
	if len(rin) == 0 {
		rin, rout, rh = []sbp.SBP{prod[0]}, []sbp.SBP{cons[0]}, []int{h[0]}
	}
	if slices.Equal(rin, rout) {
		return 0
	}
	if len(rin) == 1 {
		return sameDeviceCost(rin[0], rout[0], t, rh[0])
	}
	n := p.Size()
	total := 1.0
	abnormal := false
	for i := range rin {
		total += sameDeviceCost(rin[i], rout[i], t, n)
		if rout[i].Kind == sbp.Partial && rin[i] != rout[i] {
			total += partialPenalty(t, n, n)
		}
		if !abnormal && rin[i].Kind == sbp.Split && rin[i] == rout[i] {
			for j := range i {
				if rin[j] != rout[j] && (rin[j] == rin[i] || rout[j] == rin[i]) {
					abnormal = true
				}
			}
		}
	}
	if abnormal {
		total += t
	}
	return total
}

// sameDeviceCost is ComputCopyCostBetweenTwoSbpParallel of
// sbp_infer_util.cpp on the same n devices, eager: 0 when equal, the
// partial penalty into P, 1 from B (a slice), t·(n−1)/n from one split
// to another (all-to-all), t·(n−1) for P → S and S → B, 2·t·(n−1) for
// P → B.
func sameDeviceCost(p, c sbp.SBP, t float64, n int) float64 {
	nf := float64(n)
	switch {
	case p == c:
		return 0
	case c.Kind == sbp.Partial:
		return partialPenalty(t, n, n)
	case p.Kind == sbp.Broadcast:
		return 1
	case p.Kind == sbp.Split && c.Kind == sbp.Split:
		return t * (nf - 1) / nf
	case p.Kind == sbp.Partial && c.Kind == sbp.Broadcast:
		return 2 * t * (nf - 1)
	}
	return t * (nf - 1) // P → S, S → B
}

// partialPenalty is Penalty4PartialInConsumer under its default policy
// (ONEFLOW_PENALTY_FOR_PARTIAL_IN_CONSUMER_POLICY=2, kMiddle):
// 4·t·(n_p + n_c).
func partialPenalty(t float64, np, nc int) float64 { return 4 * t * float64(np+nc) }
