package program

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Strategy is how the planner picks each op's signature.
type Strategy string

const (
	// Greedy is OneFlow's eager rule: ops in program order; an op whose
	// inputs already form a valid signature runs as they are; otherwise
	// its inputs are boxed to the valid signature whose boxing sends the
	// fewest bytes (ties: fewer boxings, then the op's signature order).
	Greedy Strategy = "greedy"
	// Exact picks the signatures of the whole program (forward and
	// backward) that send the fewest bytes in all, by dynamic programming
	// over the layouts of the live tensors; past ExactBound layouts it
	// refuses.
	Exact Strategy = "exact"
)

// ParseStrategy reads "greedy" or "exact".
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case Greedy, Exact:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("program: strategy %q: choose greedy or exact", s)
}

// ExactBound bounds the exact search: the layouts of the live tensors it
// keeps between two steps. Past it the search is refused, with the number
// of assignments of signatures an exhaustive search would try.
const ExactBound = 1 << 15

// Plan is a program planned on its placement: every step in order (the
// inputs, each boxing, each op; the backward's after the forward's) and
// the bytes the boxings send.
type Plan struct {
	Program   *Program `json:"-"`
	Placement string   `json:"placement"`
	Strategy  Strategy `json:"strategy"`
	// TotalSendBytes is the sum over the boxing steps of this plan;
	// GreedySendBytes and ExactSendBytes are the totals of the two
	// strategies (ExactSendBytes nil when the exact search was refused).
	TotalSendBytes  int64  `json:"total_send_bytes"`
	GreedySendBytes int64  `json:"greedy_send_bytes"`
	ExactSendBytes  *int64 `json:"exact_send_bytes"`
	// ExactRefused says why there is no exact total, or "".
	ExactRefused string `json:"exact_refused,omitempty"`
	Steps        []Step `json:"steps"`
	// Differences lists the ops where the exact plan picks another
	// signature than the greedy one, with what each choice costs.
	Differences []Difference `json:"differences,omitempty"`
	// Grads maps every name that has a gradient to the step name that
	// holds it (grad_NAME for the inputs).
	Grads map[string]string `json:"grads,omitempty"`
	graph *graph
}

// StepKind is what a step does.
type StepKind string

const (
	StepInput  StepKind = "input"  // a tensor laid out: a program input, the backward's seed or a zero gradient
	StepBoxing StepKind = "boxing" // a tensor boxed from one SBP to another
	StepOp     StepKind = "op"     // an op run on every device's shards
)

// Step is one step of a plan. Only the fields of its kind are set.
type Step struct {
	Kind   StepKind     `json:"kind"`
	Name   string       `json:"name,omitempty"`   // input, op: the name it defines; boxing: the copy's name
	Shape  tensor.Shape `json:"shape"`            // the logical shape
	Pass   Pass         `json:"pass"`             // forward or backward
	Sbp    string       `json:"sbp,omitempty"`    // input: its SBP
	Values string       `json:"values,omitempty"` // input: arange, FILE.npy, ones or zeros

	// boxing
	Tensor      string      `json:"tensor,omitempty"` // the tensor boxed
	For         string      `json:"for,omitempty"`    // the name whose op (or statement) needed it
	From        string      `json:"from,omitempty"`
	To          string      `json:"to,omitempty"`
	Collectives []string    `json:"collectives,omitempty"`
	SendBytes   int64       `json:"send_bytes"`
	RecvBytes   int64       `json:"recv_bytes"`
	Ranks       []RankBytes `json:"ranks,omitempty"`

	// op
	Op         string      `json:"op,omitempty"` // the op's word
	Inputs     []string    `json:"inputs,omitempty"`
	InSbp      []string    `json:"in_sbp,omitempty"` // the SBPs it runs on (after boxing)
	OutSbp     string      `json:"out_sbp,omitempty"`
	Signature  string      `json:"signature,omitempty"`  // per mesh dim, "S(0) x B -> S(0)"; joined by "; " on a mesh
	Reuses     []string    `json:"reuses,omitempty"`     // boxed copies made for an earlier op that serve this one too
	Candidates []Candidate `json:"candidates,omitempty"` // every valid signature and what its boxing would send

	// Why says why the step is there, in a learner's words.
	Why string `json:"why,omitempty"`

	op    sbp.Op
	args  []string // op: the names it reads (the boxed copies where boxed); boxing: the source
	alias bool     // boxing: no step in fact (a gradient already laid out as its input): Name is Tensor
}

// Out is the SBP a step leaves its tensor in: an input's, a boxing's
// To, an op's OutSbp.
func (s Step) Out() string {
	switch s.Kind {
	case StepBoxing:
		return s.To
	case StepOp:
		return s.OutSbp
	}
	return s.Sbp
}

// Operation is an op step's op (nil for other steps): what an engine
// runs on every device, with the per-device arguments sbp.PlanOp gives
// for the step's InSbp.
func (s Step) Operation() sbp.Op { return s.op }

// Reads names the steps whose values an op or boxing step reads: for an
// op, its inputs after any boxing (the boxed copies); for a boxing, the
// tensor it boxes.
func (s Step) Reads() []string { return slices.Clone(s.args) }

// stmtError names the statement behind step s in err: its own, or for a
// boxing the planner inserted, the statement of the op that needed it;
// for a step of the backward that no statement names, the grad.
func (pl *Plan) stmtError(s Step, err error) error {
	for _, name := range []string{s.Name, s.For} {
		if st := pl.Program.Lookup(name); st != nil && name != "" {
			return &Error{Line: st.Line, Col: st.Col, Stmt: st.Text, Err: err}
		}
	}
	if g := pl.Program.Grad; g != nil && s.Pass == Backward {
		return &Error{Line: g.Line, Col: g.Col, Stmt: g.Text, Err: err}
	}
	return &Error{Err: err}
}

// RankBytes is one device's traffic in a boxing.
type RankBytes struct {
	Rank      int   `json:"rank"`
	SendBytes int64 `json:"send_bytes"`
	RecvBytes int64 `json:"recv_bytes"`
}

// Candidate is one signature an op could run under: the SBPs its inputs
// would be boxed to, what comes out, and the bytes the boxing would send.
type Candidate struct {
	InSbp     []string `json:"in_sbp"`
	OutSbp    string   `json:"out_sbp"`
	Signature string   `json:"signature"`
	SendBytes int64    `json:"send_bytes"`
	Boxings   int      `json:"boxings"`
}

// Difference is an op where the strategies disagree.
type Difference struct {
	Name   string `json:"name"`
	Pass   Pass   `json:"pass"`
	Greedy Choice `json:"greedy"`
	Exact  Choice `json:"exact"`
}

// Choice is one strategy's pick for an op: the signature and the bytes
// its boxing sent before the op.
type Choice struct {
	Signature string   `json:"signature"`
	InSbp     []string `json:"in_sbp"`
	SendBytes int64    `json:"send_bytes"`
}

// cand is a candidate as the planner keeps it: the inputs' SBPs and the
// output's, as the planner's ids of them, and the signatures.
type cand struct {
	in  []int
	out int
	sig []sbp.Signature
}

// planner holds what every strategy shares: the graph, each op's valid
// candidates, and the bytes of each boxing (asked of sbp once). SBPs and
// names are small ids, so the exact search compares and copies slices,
// not strings.
type planner struct {
	g     *graph
	p     sbp.Placement
	cands map[int][]cand // by node index
	boxes map[[3]int]sbp.Boxing
	nds   []sbp.NdSbp    // id → SBP
	ndIDs map[string]int // SBP's spelling → id
	names map[string]int // a node's name → its index among the names
	out   []int          // node index → its name's index
	args  [][]int        // node index → its arguments' name indices
	// tooMany: the plan met more than maxSbps SBPs (its ids are wrong).
	tooMany bool
}

// id is nd's id (made on first sight).
func (pl *planner) id(nd sbp.NdSbp) int {
	k := nd.String()
	if i, ok := pl.ndIDs[k]; ok {
		return i
	}
	if len(pl.nds) == maxSbps {
		pl.tooMany = true
		return 0
	}
	pl.ndIDs[k] = len(pl.nds)
	pl.nds = append(pl.nds, nd)
	return len(pl.nds) - 1
}

// maxSbps bounds the distinct SBPs of a plan: a state keeps a tensor's
// copies as a bit set of their SBPs.
const maxSbps = 256

// NewPlan plans p with strategy s: the program's steps with every boxing
// inserted, and the totals of both strategies (the exact one unless its
// search is refused; with s == Exact a refusal is an error).
func NewPlan(p *Program, s Strategy) (*Plan, error) {
	if _, err := ParseStrategy(string(s)); err != nil {
		return nil, err
	}
	g, err := buildGraph(p)
	if err != nil {
		return nil, err
	}
	pl := &planner{g: g, p: p.Placement, cands: map[int][]cand{}, boxes: map[[3]int]sbp.Boxing{}, ndIDs: map[string]int{}, names: map[string]int{}}
	for _, n := range g.nodes {
		if _, ok := pl.names[n.name]; !ok {
			pl.names[n.name] = len(pl.names)
		}
	}
	for _, n := range g.nodes {
		pl.out = append(pl.out, pl.names[n.name])
		args := make([]int, len(n.args))
		for j, a := range n.args {
			args[j] = pl.names[a]
		}
		pl.args = append(pl.args, args)
	}
	if len(pl.names) > maxNames {
		return nil, &Error{Err: fmt.Errorf("the program and its backward have %d tensors; the planner takes at most %d", len(pl.names), maxNames)}
	}
	for i, n := range g.nodes {
		if n.kind != nOp {
			continue
		}
		cs, err := pl.candidates(n)
		if err != nil {
			return nil, pl.fault(n, err)
		}
		pl.cands[i] = cs
	}
	greedy, err := pl.simulate(pl.greedyChoice)
	if err == nil && pl.tooMany {
		err = &Error{Err: fmt.Errorf("the plan lays tensors out in more than %d SBPs; the planner takes at most that many", maxSbps)}
	}
	if err != nil {
		return nil, err
	}
	// Under greedy the exact totals are a comparison, searched within a
	// quarter of the bound so that a scene rebuilt on every keystroke
	// stays quick; --strategy exact searches the whole bound.
	bound := ExactBound
	if s != Exact {
		bound /= 4
	}
	exactChoices, refused := pl.exact(bound)
	var exact *run
	if refused == "" {
		if exact, err = pl.simulate(func(i int, _ *state) int { return exactChoices[i] }); err != nil {
			return nil, err
		}
	}
	if s == Exact && exact == nil {
		return nil, &Error{Err: fmt.Errorf("exact: %s", refused)}
	}
	chosen := greedy
	if s == Exact {
		chosen = exact
	}
	plan := &Plan{Program: p, Placement: p.Placement.String(), Strategy: s, Steps: chosen.steps,
		TotalSendBytes: chosen.total, GreedySendBytes: greedy.total, ExactRefused: refused, Grads: map[string]string{}, graph: g}
	for name, gname := range g.grads {
		plan.Grads[name] = chosen.resolve(gname)
	}
	if exact != nil {
		t := exact.total
		plan.ExactSendBytes = &t
		for i, gc := range greedy.choice {
			if ec := exact.choice[i]; ec != gc {
				n := g.nodes[i]
				plan.Differences = append(plan.Differences, Difference{Name: n.name, Pass: n.pass,
					Greedy: greedy.picked(pl, i), Exact: exact.picked(pl, i)})
			}
		}
		slices.SortStableFunc(plan.Differences, func(a, b Difference) int { return greedy.index[a.Name] - greedy.index[b.Name] })
	}
	return plan, nil
}

// fault names the statement behind node n in an error.
func (pl *planner) fault(n *node, err error) error {
	if st := pl.g.prog.Lookup(n.name); st != nil && n.pass == Forward {
		return &Error{Line: st.Line, Col: st.Col, Stmt: st.Text, Err: err}
	}
	if g := pl.g.prog.Grad; g != nil {
		return &Error{Line: g.Line, Col: g.Col, Stmt: g.Text, Err: err}
	}
	return &Error{Err: err}
}

// candidates lists every valid signature of n (sbp.Candidates), as the
// planner's ids.
func (pl *planner) candidates(n *node) ([]cand, error) {
	shapes := make([]tensor.Shape, len(n.args))
	for i, a := range n.args {
		shapes[i] = pl.g.lookup(a).shape
	}
	cs, err := sbp.Candidates(n.op, shapes, pl.p)
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

// maxNames bounds the tensors of a program and its backward.
const maxNames = 4096

// boxing returns sbp's plan for boxing the tensor of name index x from
// one SBP id to another (asked of sbp once per triple).
func (pl *planner) boxing(x, from, to int) (sbp.Boxing, error) {
	key := [3]int{x, from, to}
	if b, ok := pl.boxes[key]; ok {
		return b, nil
	}
	b, err := sbp.PlanBoxing(pl.shapeOf(x), tensor.Float32, pl.p, pl.nds[from], pl.nds[to])
	if err == nil {
		pl.boxes[key] = b
	}
	return b, err
}

// shapeOf is the shape of the tensor of name index x.
func (pl *planner) shapeOf(x int) tensor.Shape {
	for i, n := range pl.g.nodes {
		if pl.out[i] == x {
			return n.shape
		}
	}
	return nil
}

// state is what the planner knows between two steps: each name's SBP id
// (-1: not laid out, or forgotten) and the ids of the boxed copies made
// of it so far, as a bit set.
type state struct {
	sbp    []int16
	copies []bits
}

// bits is a set of SBP ids.
type bits [maxSbps / 64]uint64

func (b bits) has(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }
func (b *bits) add(id int)     { b[id/64] |= 1 << (id % 64) }

func newState(names int) *state {
	s := &state{sbp: make([]int16, names), copies: make([]bits, names)}
	for i := range s.sbp {
		s.sbp[i] = -1
	}
	return s
}

func (s *state) clone() *state {
	return &state{sbp: slices.Clone(s.sbp), copies: slices.Clone(s.copies)}
}

func (s *state) has(x, id int) bool { return int(s.sbp[x]) == id || s.copies[x].has(id) }

func (s *state) key() string {
	b := make([]byte, 0, 8*len(s.sbp))
	for x, id := range s.sbp {
		if id < 0 {
			continue
		}
		b = append(b, byte(x), byte(x>>8), byte(id))
		for _, w := range s.copies[x] {
			if w != 0 { // a marker, then the word: no two states spell alike
				b = binary.LittleEndian.AppendUint64(append(b, 1), w)
			} else {
				b = append(b, 0)
			}
		}
	}
	return string(b)
}

// cost is what boxing node i's inputs to c sends in state s, and how many
// boxings it takes (a copy made earlier costs nothing).
func (pl *planner) cost(i int, c cand, s *state) (int64, int, error) {
	var bytes int64
	boxings := 0
	for j, x := range pl.args[i] {
		if s.has(x, c.in[j]) {
			continue
		}
		b, err := pl.boxing(x, int(s.sbp[x]), c.in[j])
		if err != nil {
			return 0, 0, err
		}
		bytes += b.SendBytes
		boxings++
	}
	return bytes, boxings, nil
}

// greedyChoice is OneFlow's eager rule (see Greedy).
func (pl *planner) greedyChoice(i int, s *state) int {
	best, bestBytes, bestBoxings := -1, int64(0), 0
	for k, c := range pl.cands[i] {
		asTheyAre := true
		for j, x := range pl.args[i] {
			asTheyAre = asTheyAre && int(s.sbp[x]) == c.in[j]
		}
		if asTheyAre {
			return k
		}
		bytes, boxings, err := pl.cost(i, c, s)
		if err != nil {
			continue
		}
		if best < 0 || bytes < bestBytes || bytes == bestBytes && boxings < bestBoxings {
			best, bestBytes, bestBoxings = k, bytes, boxings
		}
	}
	return best
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
