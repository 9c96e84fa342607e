package planner

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/minsum"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// cand is a candidate as the planner keeps it: the inputs' SBPs and the
// output's, as the planner's ids of them, and the signatures.
type cand struct {
	in  []int
	out int
	sig []sbp.Signature
}

// read is one place a tensor is read: node j, as its argument pos.
type read struct{ node, pos int }

// planner holds what every strategy shares: the graph, each op's valid
// candidates (the full signature space, sbp.Candidates), the readers of
// every tensor, and the bytes of each boxing (asked of sbp once). SBPs
// and names are small ids.
type planner struct {
	g       *graph.Graph
	p       sbp.Placement
	cands   [][]cand // by node index: an op's signatures, an auto input's layouts; nil for the rest
	decider []int    // by node index: the node whose candidate sets its layout (autoCands), or -1
	boxes   map[[3]int]boxEdge
	nds     []sbp.NdSbp        // id → SBP
	ndIDs   map[string]int     // SBP's key (sbp.AppendKey) → id
	key     []byte             // scratch for id
	names   map[string]int     // a node's name → its index among the names
	aliases map[int][]int      // name index → the names that stand for it to a box written regather (aliasRegathers)
	out     []int              // node index → its name's index
	args    [][]int            // node index → its arguments' name indices
	def     []int              // name index → the node that defines it
	readers [][]read           // name index → where it is read
	prec    []tensor.Precision // name index → its precision (precisions)
	shapeOf []int              // name index → its shape's (and precision's) index: boxings are asked of sbp once per shape
	shapeKs []string           // shape index → its spelling, with the placement's (boxMemo's keys)
	ndKeys  []string           // SBP id → its spelling
	trees   map[string]copyTree
	treeKey []byte // scratch for copyPlan's keys
	// treeMemo is the weight of the cheapest tree of boxings of a tensor
	// of one shape from a layout to a set of layouts (their ids, all
	// below 64), as fillTensorFactor works it out.
	treeMemo map[treeKey]int64
	poll     *minsum.Poller   // the plan's context, read in the long loops (nil: never)
	clu      *cluster.Cluster // the cluster the steps are timed on, or nil
	cost     Cost             // what exact minimises
	opPs     [][]int64        // node → candidate → its time in ps (opCost), filled on first use
	lambda   float64          // fitMemory's price of an auto input's memory, ps a byte (0: none)
	static   map[int][]int64  // auto input → its candidates' staticBytes, made on first use
	touch    [][]int          // node → the tensors its choice prices (touches), made on first use
}

// treeKey keys planner.treeMemo: a shape's index, the source layout's id
// and the set of the needs' ids as bits.
type treeKey struct {
	shape, from int32
	set         uint64
}

// boxEdge is one boxing as the planner costs it: sbp's plan, or why it
// cannot be planned.
type boxEdge struct {
	b   sbp.Boxing
	err error
}

// id is nd's id (made on first sight).
func (pl *planner) id(nd sbp.NdSbp) int {
	pl.key = sbp.AppendKey(pl.key[:0], nd)
	if i, ok := pl.ndIDs[string(pl.key)]; ok {
		return i
	}
	pl.ndIDs[string(pl.key)] = len(pl.nds)
	pl.nds = append(pl.nds, nd)
	pl.ndKeys = append(pl.ndKeys, nd.String())
	return len(pl.nds) - 1
}

// maxNames bounds the tensors of a program and its backward.
const maxNames = 4096

// newPlanner builds the graph of p and every op's candidates.
func newPlanner(p *program.Program) (*planner, error) {
	g, err := graph.Build(p)
	if err != nil {
		return nil, err
	}
	pl := &planner{g: g, p: p.Placement, cands: make([][]cand, len(g.Nodes)), boxes: map[[3]int]boxEdge{},
		ndIDs: map[string]int{}, names: map[string]int{}, trees: map[string]copyTree{}, treeMemo: map[treeKey]int64{}}
	for i, n := range g.Nodes {
		if _, ok := pl.names[n.Name]; !ok {
			pl.names[n.Name] = len(pl.names)
			pl.def = append(pl.def, i)
		}
	}
	if len(pl.names) > maxNames {
		return nil, &program.Error{Err: fmt.Errorf("the program and its backward have %d tensors; the planner takes at most %d", len(pl.names), maxNames)}
	}
	pl.readers = make([][]read, len(pl.names))
	for i, n := range g.Nodes {
		pl.out = append(pl.out, pl.names[n.Name])
		args := make([]int, len(n.Args))
		for j, a := range n.Args {
			args[j] = pl.names[a]
			pl.readers[args[j]] = append(pl.readers[args[j]], read{i, j})
		}
		pl.args = append(pl.args, args)
	}
	pl.aliasRegathers()
	pl.prec = pl.precisions()
	shapes := map[string]int{}
	for x, d := range pl.def {
		k := g.Nodes[d].Shape.String()
		if w := pl.prec[x].Bytes(); w != 4 {
			k += " " + strconv.Itoa(w) + "B" // a 16-bit tensor's boxings move half the bytes
		}
		if _, ok := shapes[k]; !ok {
			shapes[k] = len(shapes)
			pl.shapeKs = append(pl.shapeKs, p.Placement.String()+" "+k)
		}
		pl.shapeOf = append(pl.shapeOf, shapes[k])
	}
	for i, n := range g.Nodes {
		if n.Kind != graph.KindOp {
			continue
		}
		cs, err := pl.candidates(n)
		if err != nil {
			return nil, pl.fault(n, err)
		}
		pl.cands[i] = cs
	}
	pl.autoCands()
	return pl, nil
}

// NewPlan plans p with strategy s: the program's steps with every boxing
// inserted, and the totals of both strategies. Under Exact a refusal of
// the exact search is an error; under Greedy the exact total is a
// comparison, computed only when its elimination is cheap (at most
// ComparisonBound table entries in all), so that a scene rebuilt on
// every keystroke stays quick, and ExactRefused says when it was not.
func NewPlan(p *program.Program, s Strategy) (*Plan, error) {
	return NewPlanContext(context.Background(), p, s, Options{CompareBound: ComparisonBound})
}

// Options adjust NewPlanWith.
type Options struct {
	// CompareBound bounds the exact comparison beside a greedy plan: the
	// entries of its elimination's tables in all; 0 computes none.
	CompareBound int
	// Cluster, when set, times every step on it (it must have a link
	// per mesh dim of the program's placement).
	Cluster *cluster.Cluster
	// Cost is what exact minimises: "" is Time with a Cluster, else
	// Bytes; Time needs a Cluster.
	Cost Cost

	// onPoll, when set (by tests), is called each time the planner reads
	// its context, with the units of work done (minsum.Poller).
	onPoll func(done int)
}

// NewPlanWith is NewPlan with options.
func NewPlanWith(p *program.Program, s Strategy, o Options) (*Plan, error) {
	return NewPlanContext(context.Background(), p, s, o)
}

// NewPlanContext is NewPlanWith under ctx: the greedy pass between ops,
// and the exact search in its long loops (every few thousand table
// entries, variables scored or trees of boxings costed), read ctx, and
// once it is done the plan stops with a program error that wraps
// ctx.Err() (errors.Is(err, context.Canceled) or
// context.DeadlineExceeded).
func NewPlanContext(ctx context.Context, p *program.Program, s Strategy, o Options) (*Plan, error) {
	if _, err := ParseStrategy(string(s)); err != nil {
		return nil, err
	}
	pl, err := newPlanner(p)
	if err != nil {
		return nil, err
	}
	stopped := func(err error) error {
		return &program.Error{Err: fmt.Errorf("planning stopped: %w", err)}
	}
	if err := ctx.Err(); err != nil {
		return nil, stopped(err)
	}
	pl.poll = &minsum.Poller{Ctx: ctx, OnPoll: o.onPoll}
	if err := pl.onCluster(o); err != nil {
		return nil, err
	}
	greedyChoice, err := pl.greedy()
	if ctx.Err() != nil {
		return nil, stopped(ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	greedy, err := pl.simulate(greedyChoice)
	if err != nil {
		return nil, err
	}
	var exact *run
	var exactChoice []int
	var answer exactAnswer
	refused := "not compared (Options.CompareBound is 0)"
	if (s == Exact || o.CompareBound > 0) && p.Placement.Size() == 1 {
		// On one device every layout is the whole tensor: no boxing sends
		// anything and every op computes the same, so every choice costs
		// the same and greedy's is an optimum.
		exactChoice, refused = greedyChoice, ""
	} else if s == Exact || o.CompareBound > 0 {
		total := ExactWork
		if s != Exact {
			total = o.CompareBound
		}
		if answer, err = pl.exact(ExactBound, total, s != Exact, greedyChoice); err != nil {
			return nil, stopped(err)
		}
		exactChoice, refused = answer.choice, answer.refused
	}
	if refused == "" {
		if exact, err = pl.simulate(exactChoice); err != nil {
			return nil, err
		}
	}
	if s == Exact && exact == nil {
		return nil, &program.Error{Err: fmt.Errorf("exact: %s", refused)}
	}
	if s == Exact && pl.clu != nil && pl.cost == Time && pl.hasAuto() {
		// The layouts exact picked must fit the devices' memory.
		first := exact
		if exact, exactChoice, err = pl.fitMemory(exact, exactChoice); err != nil {
			if ctx.Err() != nil {
				return nil, stopped(ctx.Err())
			}
			return nil, err
		}
		if exact != first {
			answer.unproven, answer.gap = "", 0 // fitMemory's plan: a heuristic under the memory bound, priced otherwise
		}
	}
	chosen := greedy
	if s == Exact {
		chosen = exact
	}
	plan := &Plan{Program: p, Placement: p.Placement.String(), Strategy: s, Steps: chosen.steps,
		TotalSendBytes: chosen.total, GreedySendBytes: greedy.total, ExactRefused: refused, ExactUnproven: answer.unproven, ExactGap: answer.gap, Grads: map[string]string{}, graph: pl.g,
		Cost: pl.cost, Cluster: pl.clu}
	if pl.clu != nil {
		t := timing(chosen.steps)
		plan.Timing = &t
		plan.GreedyTimeS = timing(greedy.steps).TimeS
		if exact != nil {
			e := timing(exact.steps).TimeS
			plan.ExactTimeS = &e
		}
	}
	for name, gname := range pl.g.Grads {
		plan.Grads[name] = chosen.resolve(gname)
	}
	if exact != nil {
		t := exact.total
		plan.ExactSendBytes = &t
		for i, gc := range greedyChoice {
			if ec := exactChoice[i]; ec != gc && pl.g.Nodes[i].Kind == graph.KindOp {
				n := pl.g.Nodes[i]
				plan.Differences = append(plan.Differences, Difference{Name: n.Name, Pass: n.Pass,
					Greedy: greedy.picked(pl, i), Exact: exact.picked(pl, i)})
			}
		}
		slices.SortStableFunc(plan.Differences, func(a, b Difference) int { return greedy.index[a.Name] - greedy.index[b.Name] })
	}
	return plan, nil
}

// ComparisonBound bounds the exact comparison NewPlan computes under
// Greedy: the entries of the elimination's tables in all. 2^16 entries
// fill in about a millisecond.
const ComparisonBound = 1 << 16

// aliasRegathers gives the source of each backward copy of a box
// written regather (graph.RegatherName) a name of its own, an alias
// laid out by the same node: that copy reads the alias, so the copies it
// makes are its own, and neither the exact search's factors nor simulate
// let it share the forward's copy, which FSDP has freed. The alias's
// factor then prices the boxing again, as the run makes it.
func (pl *planner) aliasRegathers() {
	pl.aliases = map[int][]int{}
	for i, n := range pl.g.Nodes {
		if n.Kind != graph.KindBox || !n.Regather || n.Pass != graph.Backward {
			continue
		}
		x, a := pl.args[i][0], len(pl.def)
		pl.names["\x00"+n.Name] = a // no name a program can write
		pl.def = append(pl.def, pl.def[x])
		pl.readers = append(pl.readers, []read{{i, 0}})
		pl.readers[x] = slices.DeleteFunc(pl.readers[x], func(r read) bool { return r.node == i })
		pl.args[i][0] = a
		pl.aliases[x] = append(pl.aliases[x], a)
	}
}

// fault names the statement behind node n in an error.
func (pl *planner) fault(n *graph.Node, err error) error {
	if st := pl.g.Prog.Lookup(n.Name); st != nil && n.Pass == graph.Forward {
		return &program.Error{Line: st.Line, Col: st.Col, Stmt: st.Text, Err: err}
	}
	if g := pl.g.Prog.Grad; g != nil {
		return &program.Error{Line: g.Line, Col: g.Col, Stmt: g.Text, Err: err}
	}
	return &program.Error{Err: err}
}

// candidates lists every valid signature of n (sbp.Candidates, the full
// space: every output each input layout allows), as the planner's ids.
func (pl *planner) candidates(n *graph.Node) ([]cand, error) {
	shapes := make([]tensor.Shape, len(n.Args))
	for i, a := range n.Args {
		shapes[i] = pl.g.Lookup(a).Shape
	}
	cs, err := sbp.Candidates(n.Op, shapes, pl.p)
	if err != nil {
		return nil, err
	}
	out := make([]cand, len(cs))
	for k, c := range cs {
		ids := make([]int, len(c.In))
		for j, nd := range c.In {
			ids[j] = pl.id(nd)
		}
		out[k] = cand{in: ids, out: pl.id(c.Out), sig: c.Sig}
	}
	return out, nil
}

// boxing returns sbp's plan for boxing the tensor of name index x from
// one SBP id to another (asked of sbp once per shape and pair of SBPs).
func (pl *planner) boxing(x, from, to int) (sbp.Boxing, error) {
	key := [3]int{pl.shapeOf[x], from, to}
	if e, ok := pl.boxes[key]; ok {
		return e.b, e.err
	}
	b, err := memoBoxing(pl.shapeKs[key[0]]+" "+pl.ndKeys[from]+" "+pl.ndKeys[to], pl.g.Nodes[pl.def[x]].Shape, pl.prec[x].Bytes(), pl.p, pl.nds[from], pl.nds[to])
	pl.boxes[key] = boxEdge{b, err}
	return b, err
}

// layouts returns the SBP id of every name when the ops run as choice
// (a candidate index per op node): an input's, a boxing's target, an
// op's output, the seed laid out as the result it seeds (seedSbp).
func (pl *planner) layouts(choice []int) []int {
	lay := make([]int, len(pl.names))
	for i := range pl.g.Nodes {
		lay[pl.out[i]] = pl.layoutOf(i, pl.deciding(i, choice), lay)
	}
	for x, as := range pl.aliases {
		for _, a := range as {
			lay[a] = lay[x]
		}
	}
	return lay
}

// layoutOf is the SBP id node i leaves its name in, with candidate k of
// its decider (an op's, an auto input's), given the layouts lay of the
// names before it.
func (pl *planner) layoutOf(i, k int, lay []int) int {
	n := pl.g.Nodes[i]
	switch {
	case pl.decider[i] >= 0:
		return pl.cands[pl.decider[i]][k].out
	case n.Kind == graph.KindOnes:
		return pl.id(seedSbp(pl.nds[lay[pl.names[n.SeedOf]]]))
	}
	return pl.id(n.Sbp)
}

// needs returns the layouts the readers of name x ask for when the ops
// run as choice: each op reader's signature input, each boxing's target.
func (pl *planner) needs(x int, choice []int) []int {
	var need []int
	for _, r := range pl.readers[x] {
		need = append(need, pl.needOf(r, pl.deciding(r.node, choice)))
	}
	return need
}

// needOf is the layout reader r asks for under candidate k of its
// decider: an op's signature input, the target of an auto input's final
// gradient (the input's layout), else the boxing's own target.
func (pl *planner) needOf(r read, k int) int {
	switch d := pl.decider[r.node]; {
	case pl.g.Nodes[r.node].Kind == graph.KindOp:
		return pl.cands[r.node][k].in[r.pos]
	case d >= 0:
		return pl.cands[d][k].out
	}
	return pl.id(pl.g.Nodes[r.node].Sbp)
}

// seedSbp is how the backward's seed is laid out: as the result it
// differentiates, but B where the result is partial (the gradient of a
// partial value reaches every device whole).
func seedSbp(of sbp.NdSbp) sbp.NdSbp {
	out := of.Clone()
	for m, s := range out {
		if s.Kind == sbp.Partial {
			out[m] = sbp.B
		}
	}
	return out
}
