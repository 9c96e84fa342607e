package program

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
)

// run is one way through the graph: the steps it writes, the choice of
// signature at each op, and the bytes its boxings send.
type run struct {
	steps   []Step
	total   int64
	choice  map[int]int   // node index → candidate
	spent   map[int]int64 // node index → bytes boxed before it
	index   map[string]int
	aliases map[string]string // a name that is another's values (a gradient already laid out as its input)
	copies  map[string]string // "name@SBP" → the name of the boxed copy
}

func newRun() *run {
	return &run{choice: map[int]int{}, spent: map[int]int64{}, index: map[string]int{}, aliases: map[string]string{}, copies: map[string]string{}}
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
	return Choice{Signature: sigString(c.sig), InSbp: pl.strings(c.in), SendBytes: r.spent[i]}
}

// simulate walks the graph, asking choose for each op's candidate.
func (pl *planner) simulate(choose func(i int, s *state) int) (*run, error) {
	r := newRun()
	st := newState(len(pl.names))
	for i, n := range pl.g.nodes {
		k := -1
		if n.kind == nOp {
			if k = choose(i, st); k < 0 {
				return nil, pl.fault(n, fmt.Errorf("%s: no signature's boxing can be planned", n.op))
			}
		}
		if _, _, err := pl.advance(i, k, st, r); err != nil {
			return nil, pl.fault(n, err)
		}
	}
	return r, nil
}

// copyName names the boxed copy of name laid out as nd: x@B.
func copyName(name string, nd sbp.NdSbp) string { return name + "@" + nd.String() }

// advance applies node i (with candidate k for an op) to st: the SBPs
// and copies it makes, and the bytes and boxings it costs. With r it also
// writes the steps.
func (pl *planner) advance(i, k int, st *state, r *run) (int64, int, error) {
	n := pl.g.nodes[i]
	me, args := pl.out[i], pl.args[i]
	write := func(s Step) {
		if r != nil {
			r.index[s.Name] = len(r.steps)
			r.steps = append(r.steps, s)
		}
	}
	switch n.kind {
	case nInput, nOnes, nZeros:
		nd, values := n.sbp, "arange"
		switch {
		case n.kind == nOnes:
			nd, values = seedSbp(pl.nds[st.sbp[pl.names[n.seedOf]]]), "ones"
		case n.kind == nZeros:
			values = "zeros"
		case n.from != "":
			values = n.from
		}
		st.sbp[me] = int16(pl.id(nd))
		if r != nil {
			write(Step{Kind: StepInput, Name: n.name, Shape: n.shape, Pass: n.pass, Sbp: nd.String(), Values: values, Why: n.why})
		}
		return 0, 0, nil
	case nBox:
		src, to := args[0], pl.id(n.sbp)
		from := int(st.sbp[src])
		if n.gradOf != "" && st.has(src, to) {
			// The gradient is laid out as its input already (or a copy
			// of it is): nothing moves.
			st.sbp[me] = int16(to)
			if r != nil {
				r.aliases[n.name] = n.args[0]
				if from != to {
					r.aliases[n.name] = r.copies[copyName(n.args[0], n.sbp)]
				}
			}
			return 0, 0, nil
		}
		b, err := pl.boxing(src, from, to)
		if err != nil {
			return 0, 0, err
		}
		st.sbp[me] = int16(to)
		st.copies[src].add(to)
		if r != nil {
			for_ := n.name
			if n.gradOf != "" {
				for_ = n.gradOf
			}
			r.copies[copyName(n.args[0], n.sbp)] = n.name
			r.total += b.SendBytes
			s := boxingStep(n.name, n.args[0], for_, n.pass, b, n.why)
			s.args = []string{r.resolve(n.args[0])}
			write(s)
		}
		return b.SendBytes, 1, nil
	}
	c := pl.cands[i][k]
	var bytes int64
	boxings := 0
	var names []string
	var reuses []string
	var cands []Candidate
	if r != nil {
		names = make([]string, len(args))
		for _, o := range pl.cands[i] {
			b, nb, err := pl.cost(i, o, st)
			if err != nil {
				continue
			}
			cands = append(cands, Candidate{InSbp: pl.strings(o.in), OutSbp: pl.nds[o.out].String(), Signature: sigString(o.sig), SendBytes: b, Boxings: nb})
		}
	}
	for j, x := range args {
		want := c.in[j]
		switch {
		case int(st.sbp[x]) == want:
			if r != nil {
				names[j] = n.args[j]
			}
			continue
		case st.copies[x].has(want):
			if r != nil {
				names[j] = r.copies[copyName(n.args[j], pl.nds[want])]
				reuses = append(reuses, fmt.Sprintf("%s as %v (boxed at step %d)", n.args[j], pl.nds[want], r.index[names[j]]+1))
			}
			continue
		}
		b, err := pl.boxing(x, int(st.sbp[x]), want)
		if err != nil {
			return 0, 0, err
		}
		bytes += b.SendBytes
		boxings++
		if r != nil {
			a := n.args[j]
			name := copyName(a, pl.nds[want])
			names[j] = name
			r.copies[name] = name
			why := fmt.Sprintf("%s = %s runs under %s, which takes %s as %v; it is %v", n.name, opText(n), sigString(c.sig), a, pl.nds[want], pl.nds[st.sbp[x]])
			s := boxingStep(name, a, n.name, n.pass, b, why)
			s.args = []string{r.resolve(a)}
			write(s)
		}
		st.copies[x].add(want)
	}
	st.sbp[me] = int16(c.out)
	if r != nil {
		r.total += bytes
		r.choice[i], r.spent[i] = k, bytes
		for j := range names {
			names[j] = r.resolve(names[j])
		}
		why := n.why
		if why == "" {
			why = fmt.Sprintf("%s = %s", n.name, opText(n))
		}
		write(Step{Kind: StepOp, Name: n.name, Shape: n.shape, Pass: n.pass, Op: n.word, Inputs: slices.Clone(n.args),
			InSbp: pl.strings(c.in), OutSbp: pl.nds[c.out].String(), Signature: sigString(c.sig), Reuses: reuses, Candidates: cands, Why: why,
			op: n.op, args: names})
	}
	return bytes, boxings, nil
}

// strings spells SBP ids.
func (pl *planner) strings(ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = pl.nds[id].String()
	}
	return out
}

func boxingStep(name, tensorName, for_ string, pass Pass, b sbp.Boxing, why string) Step {
	s := Step{Kind: StepBoxing, Name: name, Tensor: tensorName, For: for_, Shape: b.Shape, Pass: pass, From: b.From.String(), To: b.To.String(),
		SendBytes: b.SendBytes, Why: why}
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
func opText(n *node) string {
	return strings.TrimSpace(n.word + " " + strings.Join(n.args, " "))
}

func sigString(sigs []sbp.Signature) string {
	parts := make([]string, len(sigs))
	for i, s := range sigs {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

// exact finds, by dynamic programming over the graph, the candidate of
// every op that makes the boxings send the fewest bytes in all (ties:
// fewer boxings, then the earlier candidates). The state between two
// nodes is the layout of every tensor still to be read, with its copies;
// it returns why it refused when more than bound states pile up, or the
// work passes 64·bound transitions.
func (pl *planner) exact(bound int) (map[int]int, string) {
	last := make([]int, len(pl.names)) // the last node that reads each name
	for i, n := range pl.g.nodes {
		for _, x := range pl.args[i] {
			last[x] = i
		}
		if n.seedOf != "" {
			last[pl.names[n.seedOf]] = i
		}
	}
	type entry struct {
		st      *state
		bytes   int64
		boxings int
		choices map[int]int
	}
	layer := []*entry{{st: newState(len(pl.names)), choices: map[int]int{}}}
	work := 0
	for i, n := range pl.g.nodes {
		ks := []int{-1}
		if n.kind == nOp {
			ks = make([]int, len(pl.cands[i]))
			for k := range ks {
				ks[k] = k
			}
		}
		var nextLayer []*entry
		at := map[string]int{}
		for _, e := range layer {
			for _, k := range ks {
				st := e.st
				if len(ks) > 1 {
					st = e.st.clone()
				}
				b, nb, err := pl.advance(i, k, st, nil)
				if err != nil {
					continue
				}
				for x, id := range st.sbp { // forget what no later node reads
					if id >= 0 && last[x] <= i {
						st.sbp[x], st.copies[x] = -1, bits{}
					}
				}
				ne := &entry{st: st, bytes: e.bytes + b, boxings: e.boxings + nb, choices: e.choices}
				if k >= 0 {
					ne.choices = make(map[int]int, len(e.choices)+1)
					for x, y := range e.choices {
						ne.choices[x] = y
					}
					ne.choices[i] = k
				}
				key := st.key()
				if j, ok := at[key]; ok {
					if o := nextLayer[j]; ne.bytes < o.bytes || ne.bytes == o.bytes && ne.boxings < o.boxings {
						nextLayer[j] = ne
					}
					continue
				}
				at[key] = len(nextLayer)
				nextLayer = append(nextLayer, ne)
			}
		}
		if len(nextLayer) > 1 && n.kind == nOp {
			nextLayer = dominant(nextLayer, func(e *entry) (*state, int64, int) { return e.st, e.bytes, e.boxings })
		}
		if work += len(layer) * len(ks); len(nextLayer) > bound || work > 64*bound {
			return nil, pl.refusal(len(nextLayer), bound)
		}
		layer = nextLayer
	}
	best := layer[0]
	for _, e := range layer[1:] {
		if e.bytes < best.bytes || e.bytes == best.bytes && e.boxings < best.boxings {
			best = e
		}
	}
	return best.choices, ""
}

// dominant drops every state another one dominates: the same layouts,
// at most its cost, and every boxed copy it has (a copy only ever saves
// bytes later), so no optimum is lost. States are grouped by their
// layouts; within a group the cheapest come first.
func dominant[E any](entries []E, of func(E) (*state, int64, int)) []E {
	groups := map[string][]int{}
	var order []string
	for i, e := range entries {
		st, _, _ := of(e)
		k := string(layoutKey(st))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []E
	for _, k := range order {
		idx := groups[k]
		slices.SortStableFunc(idx, func(a, b int) int {
			_, ba, na := of(entries[a])
			_, bb, nb := of(entries[b])
			if ba != bb {
				return cmp.Compare(ba, bb)
			}
			return cmp.Compare(na, nb)
		})
		var kept []int
		for _, i := range idx {
			st, _, _ := of(entries[i])
			covered := false
			for _, j := range kept[:min(len(kept), 64)] { // bounded: a long group keeps a few extra states
				if o, _, _ := of(entries[j]); o.covers(st) {
					covered = true
					break
				}
			}
			if !covered {
				kept = append(kept, i)
			}
		}
		slices.Sort(kept)
		for _, i := range kept {
			out = append(out, entries[i])
		}
	}
	return out
}

// layoutKey spells the layouts of s, its copies left out.
func layoutKey(s *state) []byte {
	b := make([]byte, 0, 3*len(s.sbp))
	for x, id := range s.sbp {
		if id >= 0 {
			b = append(b, byte(x), byte(x>>8), byte(id))
		}
	}
	return b
}

// covers reports whether s has every copy o has (their layouts equal).
func (s *state) covers(o *state) bool {
	for x := range s.copies {
		for w := range s.copies[x] {
			if o.copies[x][w]&^s.copies[x][w] != 0 {
				return false
			}
		}
	}
	return true
}

// refusal says how many assignments an exhaustive search would try.
func (pl *planner) refusal(states, bound int) string {
	total := big.NewInt(1)
	var parts []string
	for i := range pl.g.nodes {
		if cs, ok := pl.cands[i]; ok {
			total.Mul(total, big.NewInt(int64(len(cs))))
			parts = append(parts, fmt.Sprint(len(cs)))
		}
	}
	return fmt.Sprintf("the program has %v assignments of signatures (%s per op), and the search met %d layouts of the live tensors at one step (its bound is %d, and %d steps of work in all): use --strategy greedy",
		total, strings.Join(parts, " × "), states, bound, 64*bound)
}
