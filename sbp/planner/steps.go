package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// run is one way through the graph: the steps it writes, the choice of
// signature at each op, and the bytes its boxings send.
type run struct {
	steps     []Step
	total     int64
	choice    map[int]int     // node index → candidate
	spent     map[int]int64   // node index → bytes boxed before it
	spentTime map[int]float64 // node index → on a cluster, the time of its boxings and itself
	index     map[string]int
	aliases   map[string]string // a name that is another's values (a gradient already laid out as its input)
	copies    map[string]string // "name@SBP" → the name of the boxed copy
}

func newRun() *run {
	return &run{choice: map[int]int{}, spent: map[int]int64{}, spentTime: map[int]float64{}, index: map[string]int{}, aliases: map[string]string{}, copies: map[string]string{}}
}

// resolve follows aliases to the step that holds name's values.
func (r *run) resolve(name string) string {
	for {
		a, ok := r.aliases[name]
		if !ok {
			return name
		}
		name = a
	}
}

func (r *run) picked(pl *planner, i int) Choice {
	c := pl.cands[i][r.choice[i]]
	return Choice{Signature: sbp.NdSignature(c.sig), InSbp: pl.ndsOf(c.in), SendBytes: r.spent[i], TimeS: r.spentTime[i]}
}

// simulate walks the graph with the ops running as choice (a candidate
// per op node) and writes the steps: every input, every op, and before
// each the boxings its inputs need. The copies of each tensor are made
// along its copyPlan tree, so a boxing starts from the tensor or from a
// copy made for an earlier reader, whichever the tree says is cheaper,
// and a copy made once serves every later reader. Last it writes what
// each device holds at each step (hold).
func (pl *planner) simulate(choice []int) (*run, error) {
	r := newRun()
	lay := pl.layouts(choice)
	trees := make([]copyTree, len(pl.names))
	for x := range trees {
		trees[x] = pl.copyPlan(x, lay[x], pl.needs(x, choice))
	}
	made := make([]map[int]string, len(pl.names)) // name → layout id → the step that holds it
	for i, n := range pl.g.Nodes {
		if err := pl.advance(i, choice[i], lay, trees, made, r); err != nil {
			return nil, pl.fault(n, err)
		}
	}
	if err := pl.hold(r); err != nil {
		return nil, err
	}
	return r, nil
}

// copyName names the boxed copy of name laid out as nd: x@B.
func copyName(name string, nd sbp.NdSbp) string { return name + "@" + nd.String() }

// advance writes node i (with candidate k for an op) into r: its own
// step, and before an op's or a boxing's the copies it reads that are
// not made yet.
func (pl *planner) advance(i, k int, lay []int, trees []copyTree, made []map[int]string, r *run) error {
	n := pl.g.Nodes[i]
	me, args := pl.out[i], pl.args[i]
	made[me] = map[int]string{lay[me]: n.Name}
	for _, a := range pl.aliases[me] {
		made[a] = map[int]string{lay[a]: n.Name}
	}
	write := func(s Step) {
		r.index[s.Name] = len(r.steps)
		r.steps = append(r.steps, s)
	}
	switch n.Kind {
	case graph.KindInput, graph.KindOnes, graph.KindZeros:
		values := n.Values
		switch n.Kind {
		case graph.KindOnes:
			values = program.ValuesOnes
		case graph.KindZeros:
			values = program.ValuesZeros
		}
		write(Step{Kind: StepInput, Name: n.Name, Shape: n.Shape, Pass: n.Pass, Sbp: pl.nds[lay[me]], Values: values, Const: n.Const, Int: n.DType == tensor.Int32, Why: n.Why})
		return nil
	case graph.KindBox:
		src, to := args[0], lay[me]
		if n.GradOf != "" {
			if have, ok := made[src][to]; ok {
				// The gradient is laid out as its input already (or a
				// copy of it is): nothing moves.
				r.aliases[n.Name] = have
				return nil
			}
		}
		for_ := n.Name
		if n.GradOf != "" {
			for_ = n.GradOf
		}
		from := to // an explicit box of a layout made already copies that copy
		if _, ok := made[src][to]; !ok {
			var err error
			if from, err = pl.makeCopy(src, to, n.Args[0], for_, n.Pass, lay, trees, made, r, func(sbp.Boxing) string { return n.Why }); err != nil {
				return err
			}
		}
		b, err := pl.boxing(src, from, to)
		if err != nil {
			return err
		}
		s := boxingStep(n.Name, n.Args[0], for_, n.Pass, b, n.Why)
		if err := pl.timeBoxingStep(&s, b); err != nil {
			return err
		}
		s.args = []string{r.resolve(made[src][from])}
		if from != lay[src] {
			s.FromCopy = s.args[0]
		}
		r.total += b.SendBytes
		r.copies[copyName(n.Args[0], pl.nds[to])] = n.Name
		if _, ok := made[src][to]; !ok {
			made[src][to] = n.Name
		}
		made[me][to] = n.Name
		write(s)
		return nil
	}
	c := pl.cands[i][k]
	var cands []Candidate
	for _, o := range pl.cands[i] {
		b, nb, err := pl.costNow(i, o, made)
		if err != nil {
			continue
		}
		cands = append(cands, Candidate{InSbp: pl.ndsOf(o.in), OutSbp: pl.nds[o.out], Signature: sbp.NdSignature(o.sig), SendBytes: b, Boxings: nb})
	}
	before, first := r.total, len(r.steps)
	names := make([]string, len(args))
	var reuses []string
	for j, x := range args {
		want := c.in[j]
		if have, ok := made[x][want]; ok {
			names[j] = have
			if want != lay[x] {
				reuses = append(reuses, fmt.Sprintf("%s as %v (boxed at step %d)", n.Args[j], pl.nds[want], r.index[have]+1))
			}
			continue
		}
		a := n.Args[j]
		refused := pl.refusal(n, i, j, c, lay)
		why := func(b sbp.Boxing) string {
			return fmt.Sprintf("%s = %s runs under %s, which takes %s as %v; it is %v", n.Name, opText(n), sbp.NdSignature(c.sig), a, b.To, b.From) + refused
		}
		from, err := pl.makeCopy(x, want, a, n.Name, n.Pass, lay, trees, made, r, why)
		if err != nil {
			return err
		}
		if err := pl.writeCopy(x, from, want, a, n.Name, n.Pass, made, r, why); err != nil {
			return err
		}
		names[j] = made[x][want]
	}
	r.choice[i], r.spent[i] = k, r.total-before
	for j := range names {
		names[j] = r.resolve(names[j])
	}
	why := n.Why
	if why == "" {
		why = fmt.Sprintf("%s = %s", n.Name, opText(n))
	}
	step := Step{Kind: StepOp, Name: n.Name, Shape: n.Shape, Pass: n.Pass, Of: n.Of, Op: n.Word, Inputs: slices.Clone(n.Args), Int: n.DType == tensor.Int32,
		InSbp: pl.ndsOf(c.in), OutSbp: pl.nds[c.out], Signature: sbp.NdSignature(c.sig), Reuses: reuses, Candidates: cands, Why: why,
		op: n.Op, args: names}
	if err := pl.timeOpStep(&step, i, c); err != nil {
		return err
	}
	write(step)
	for _, s := range r.steps[first:] {
		r.spentTime[i] += s.TimeS
	}
	return nil
}

// makeCopy makes, along x's copy tree, every ancestor of layout want
// that is not made yet, and returns the layout want itself is boxed from.
func (pl *planner) makeCopy(x, want int, name, for_ string, pass graph.Pass, lay []int, trees []copyTree, made []map[int]string, r *run, why func(sbp.Boxing) string) (int, error) {
	if trees[x].err != nil {
		return 0, trees[x].err
	}
	var chain []int // want's ancestors below the first one made, nearest first
	from, ok := trees[x].parentOf(want)
	if !ok {
		return 0, fmt.Errorf("%s as %v: the plan of its copies does not make it (a bug in the planner)", name, pl.nds[want])
	}
	for {
		if _, done := made[x][from]; done {
			break
		}
		chain = append(chain, from)
		if from, ok = trees[x].parentOf(from); !ok {
			return 0, fmt.Errorf("%s as %v: the plan of its copies has no root (a bug in the planner)", name, pl.nds[want])
		}
	}
	for k := len(chain) - 1; k >= 0; k-- {
		if err := pl.writeCopy(x, from, chain[k], name, for_, pass, made, r, why); err != nil {
			return 0, err
		}
		from = chain[k]
	}
	return from, nil
}

// writeCopy writes the boxing of x from the copy laid out as from to to,
// a copy named copyName(name, to).
func (pl *planner) writeCopy(x, from, to int, name, for_ string, pass graph.Pass, made []map[int]string, r *run, why func(sbp.Boxing) string) error {
	b, err := pl.boxing(x, from, to)
	if err != nil {
		return err
	}
	cn := copyName(name, pl.nds[to])
	s := boxingStep(cn, name, for_, pass, b, why(b))
	if err := pl.timeBoxingStep(&s, b); err != nil {
		return err
	}
	s.args = []string{r.resolve(made[x][from])}
	if src := made[x][from]; src != name {
		s.FromCopy = s.args[0]
	}
	r.copies[cn] = cn
	r.total += b.SendBytes
	made[x][to] = cn
	r.index[s.Name] = len(r.steps)
	r.steps = append(r.steps, s)
	return nil
}

// costNow is what boxing node i's inputs to c would send with the copies
// made so far, each from the cheapest copy, and how many boxings it
// takes: the figures of an op step's Candidates.
func (pl *planner) costNow(i int, c cand, made []map[int]string) (int64, int, error) {
	var bytes int64
	boxings := 0
	for j, x := range pl.args[i] {
		if _, ok := made[x][c.in[j]]; ok {
			continue
		}
		best := int64(-1)
		for from := range made[x] {
			if b, err := pl.boxing(x, from, c.in[j]); err == nil && (best < 0 || b.SendBytes < best) {
				best = b.SendBytes
			}
		}
		if best < 0 {
			return 0, 0, fmt.Errorf("no boxing makes %v", pl.nds[c.in[j]])
		}
		bytes += best
		boxings++
	}
	return bytes, boxings, nil
}

// ndsOf is the SBPs of ids.
func (pl *planner) ndsOf(ids []int) []sbp.NdSbp {
	out := make([]sbp.NdSbp, len(ids))
	for i, id := range ids {
		out[i] = pl.nds[id]
	}
	return out
}

func boxingStep(name, tensorName, for_ string, pass graph.Pass, b sbp.Boxing, why string) Step {
	s := Step{Kind: StepBoxing, Name: name, Tensor: tensorName, For: for_, Shape: b.Shape, Pass: pass, From: b.From, To: b.To,
		Boxing: &b, SendBytes: b.SendBytes, Why: why}
	for _, st := range b.Steps {
		s.Collectives = append(s.Collectives, string(st.Collective))
	}
	if len(s.Collectives) == 0 {
		s.Collectives = []string{"none"}
	}
	for _, t := range b.Ranks {
		s.RecvBytes += t.RecvBytes
		s.Ranks = append(s.Ranks, RankBytes{Rank: t.Rank, SendBytes: t.SendBytes, RecvBytes: t.RecvBytes})
	}
	return s
}

// opText spells an op node as a program would: matmul x w.
// refusal is what a boxing of node i's argument j adds to its why: the
// op's own reason (sbp.Refusal) that it cannot take the argument as it
// was made, the other arguments as candidate c takes them, or "".
func (pl *planner) refusal(n *graph.Node, i, j int, c cand, lay []int) string {
	x := pl.args[i][j]
	if c.in[j] == lay[x] {
		return ""
	}
	shapes := make([]tensor.Shape, len(n.Args))
	in := make([]sbp.NdSbp, len(n.Args))
	for k, a := range n.Args {
		shapes[k], in[k] = pl.g.Lookup(a).Shape, pl.nds[c.in[k]]
	}
	in[j] = pl.nds[lay[x]]
	if why := sbp.Refusal(n.Op, shapes, pl.p, in); why != "" {
		return fmt.Sprintf(" (%s cannot take %s as %v: %s)", n.Word, n.Args[j], in[j], why)
	}
	return ""
}

func opText(n *graph.Node) string {
	return strings.TrimSpace(n.Word + " " + strings.Join(n.Args, " "))
}
