package planner

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// Strategy is how the planner picks each op's signature.
type Strategy string

const (
	// Greedy is OneFlow's eager rule (planner.greedy): ops in program order,
	// each taking a signature from OneFlow's own list for the op by the
	// layouts its producers left, without looking ahead.
	Greedy Strategy = "greedy"
	// Exact picks the signatures of the whole program (forward and
	// backward) that send the fewest bytes in all, or under Cost Time
	// take the least time on the plan's cluster: a min-sum labelling of
	// the program's graph solved by variable elimination (minsum.Solve),
	// after the LP relaxation's bound drops what is in no optimal plan
	// where the program is wide (planner.tighten); it refuses only where the
	// elimination's largest table would pass ExactBound entries, or all
	// its tables together ExactWork.
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

// ExactBound bounds the exact search by the program's structure: the
// entries of the largest table variable elimination builds (the product
// of the classes of the variables in one factor's scope, exponential in
// the width of the elimination). 2^22 entries of 12 bytes (a value and
// its argmin) is 48 MiB.
const ExactBound = 1 << 22

// ExactWork bounds the exact search's time: the entries it fills in all,
// each step's table times the classes of the op it minimizes out (Σ over
// the steps of the joined table). Filling one takes about 5 ns (a
// sum over the joined factors and a compare, on this repository's
// benchmark machine, docs/performance.md), so 2^27 is under a second.
const ExactWork = 1 << 27

// Plan is a program planned on its placement: every step in order (the
// inputs, each boxing, each op; the backward's after the forward's),
// the bytes the boxings send and what each device holds at each step
// (Step.HeldBytes; its JSON adds the peak, Plan.Peak).
type Plan struct {
	Program   *program.Program `json:"-"`
	Placement string           `json:"placement"`
	Strategy  Strategy         `json:"strategy"`
	// TotalSendBytes is the sum over the boxing steps of this plan;
	// GreedySendBytes and ExactSendBytes are the totals of the two
	// strategies (ExactSendBytes nil when the exact search was refused).
	TotalSendBytes  int64  `json:"total_send_bytes"`
	GreedySendBytes int64  `json:"greedy_send_bytes"`
	ExactSendBytes  *int64 `json:"exact_send_bytes"`
	// ExactRefused says why there is no exact total, or "".
	ExactRefused string `json:"exact_refused,omitempty"`
	// ExactUnproven says, where the exact plan is the cheapest the
	// relaxation's search found but the elimination that would prove it
	// the cheapest passed its bounds, why; ExactGap is then the share of
	// its price (time, or bytes) the optimum may lie below it: (price −
	// bound) / price, the bound the LP relaxation's. Both are zero where
	// the exact plan is proven.
	ExactUnproven string  `json:"exact_unproven,omitempty"`
	ExactGap      float64 `json:"exact_gap,omitempty"`
	Steps         []Step  `json:"steps"`
	// Differences lists the ops where the exact plan picks another
	// signature than the greedy one, with what each choice costs.
	Differences []Difference `json:"differences,omitempty"`
	// Grads maps every name that has a gradient to the step name that
	// holds it (grad_NAME for the inputs).
	Grads map[string]string `json:"grads,omitempty"`
	// Cost is what the exact search minimised; Cluster the cluster the
	// steps are timed on (nil: none, and no times), and Timing the
	// plan's time there.
	Cost    Cost             `json:"cost"`
	Cluster *cluster.Cluster `json:"cluster,omitempty"`
	// GreedyTimeS and ExactTimeS are, on a cluster, the two strategies'
	// times (compute and communication summed); ExactTimeS is nil where
	// ExactSendBytes is.
	GreedyTimeS float64  `json:"greedy_time_s,omitempty"`
	ExactTimeS  *float64 `json:"exact_time_s,omitempty"`
	*Timing     `json:",omitempty"`
	graph       *graph.Graph
}

// Unproven says, in one line, how far the exact plan may be from the
// optimum where exact did not prove it (ExactUnproven), or "":
//
//	not proven the cheapest: the optimum is at most 2.3 % below it (after the LP bound kept …)
func (p *Plan) Unproven() string {
	if p.ExactUnproven == "" {
		return ""
	}
	return fmt.Sprintf("not proven the cheapest: the optimum is at most %.2g %% below it (%s)", 100*p.ExactGap, p.ExactUnproven)
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
	Pass   graph.Pass   `json:"pass"`             // forward or backward
	Sbp    sbp.NdSbp    `json:"sbp,omitempty"`    // input: its SBP
	Values string       `json:"values,omitempty"` // input: arange, uniform, FILE.npy, ones or zeros (program.ValuesArange and the others)
	Const  bool         `json:"const,omitempty"`  // input: a constant, which gets no gradient
	Int    bool         `json:"int,omitempty"`    // input, op: its values are int32 token ids (an input written i32, or a view of one), else float32
	// Precision is what the cost model counts the step's tensor at
	// (planner.precisions): its bytes held and sent, the chip's peak for
	// an op; f32 (left out of the JSON) unless an input says bf16 or f16.
	Precision tensor.Precision `json:"precision,omitzero"`
	Of        string           `json:"of,omitempty"` // a backward op: the forward name whose gradient rule wrote it (graph.Node.Of)

	// boxing
	Tensor   string    `json:"tensor,omitempty"`    // the tensor boxed
	For      string    `json:"for,omitempty"`       // the name whose op (or statement) needed it
	FromCopy string    `json:"from_copy,omitempty"` // the boxed copy of Tensor it started from ("" for the tensor itself)
	From     sbp.NdSbp `json:"from,omitempty"`
	To       sbp.NdSbp `json:"to,omitempty"`
	// Boxing is the boxing the planner chose, its steps and bytes as
	// sbp.PlanBoxing gave them: what an engine runs, never planned
	// again. The planner sets it on every boxing step (a plan read back
	// from JSON has none, and cannot run).
	Boxing      *sbp.Boxing `json:"-"`
	Collectives []string    `json:"collectives,omitempty"`
	SendBytes   int64       `json:"send_bytes"`
	RecvBytes   int64       `json:"recv_bytes"`
	Ranks       []RankBytes `json:"ranks,omitempty"`

	// op
	Op         string          `json:"op,omitempty"` // the op's word
	Inputs     []string        `json:"inputs,omitempty"`
	InSbp      []sbp.NdSbp     `json:"in_sbp,omitempty"` // the SBPs it runs on (after boxing)
	OutSbp     sbp.NdSbp       `json:"out_sbp,omitempty"`
	Signature  sbp.NdSignature `json:"signature,omitempty"`  // per mesh dim, "S(0) x B -> S(0)"; joined by "; " on a mesh
	Reuses     []string        `json:"reuses,omitempty"`     // boxed copies made for an earlier op that serve this one too
	Candidates []Candidate     `json:"candidates,omitempty"` // every valid signature and what its boxing would send

	// Why says why the step is there, in a learner's words.
	Why string `json:"why,omitempty"`

	// TimeS is the step's time on the plan's cluster (0 without one):
	// a boxing's collectives (BoxingTime: each step's mesh dim, link and
	// ring time), an op's roofline on its slowest device (FLOPs and
	// MemBytes there, Bound the side of the roofline it is on).
	TimeS      float64             `json:"time_s,omitempty"`
	BoxingTime *cluster.BoxingTime `json:"boxing_time,omitempty"`
	FLOPs      float64             `json:"flops,omitempty"`
	MemBytes   float64             `json:"mem_bytes,omitempty"`
	Bound      string              `json:"bound,omitempty"`

	// HeldBytes is what each device holds while the step runs, by
	// position in the placement: its shard of every value live then,
	// the inputs throughout, the inputs' gradients from where they are
	// made, every other value until its last reader (heldBytes in
	// heldBytes gives the rule).
	HeldBytes []int64 `json:"held_bytes"`

	op   sbp.Op
	args []string // op: the names it reads (the boxed copies where boxed); boxing: the source
}

// Out is the SBP a step leaves its tensor in: an input's, a boxing's
// To, an op's OutSbp.
func (s Step) Out() sbp.NdSbp {
	switch s.Kind {
	case StepBoxing:
		return s.To
	case StepOp:
		return s.OutSbp
	}
	return s.Sbp
}

// PlannedBoxing is a boxing step's boxing as the planner chose it
// (Boxing), or an error naming the step where there is none: another
// kind of step, or a plan read back from JSON.
func (s Step) PlannedBoxing() (sbp.Boxing, error) {
	if s.Kind != StepBoxing {
		return sbp.Boxing{}, fmt.Errorf("step %s is an %s step, not a boxing", s.Name, s.Kind)
	}
	if s.Boxing == nil {
		return sbp.Boxing{}, fmt.Errorf("boxing step %s (%v -> %v) carries no planned boxing: only a plan the planner made runs", s.Name, s.From, s.To)
	}
	return *s.Boxing, nil
}

// Operation is an op step's op (nil for other steps): what an engine
// runs on every device, with the per-device arguments sbp.PlanOp gives
// for the step's InSbp.
func (s Step) Operation() sbp.Op { return s.op }

// Reads names the steps whose values an op or boxing step reads: for an
// op, its inputs after any boxing (the boxed copies); for a boxing, the
// tensor it boxes.
func (s Step) Reads() []string { return slices.Clone(s.args) }

// StatementError names the statement behind step s in err: its own, or for a
// boxing the planner inserted, the statement of the op that needed it;
// for a step of the backward that no statement names, the grad.
func (pl *Plan) StatementError(s Step, err error) error {
	for _, name := range []string{s.Name, s.For} {
		if st := pl.Program.Lookup(name); st != nil && name != "" {
			return &program.Error{Line: st.Line, Col: st.Col, Stmt: st.Text, Err: err}
		}
	}
	if g := pl.Program.Grad; g != nil && s.Pass == graph.Backward {
		return &program.Error{Line: g.Line, Col: g.Col, Stmt: g.Text, Err: err}
	}
	return &program.Error{Err: err}
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
	InSbp     []sbp.NdSbp     `json:"in_sbp"`
	OutSbp    sbp.NdSbp       `json:"out_sbp"`
	Signature sbp.NdSignature `json:"signature"`
	SendBytes int64           `json:"send_bytes"`
	Boxings   int             `json:"boxings"`
}

// Difference is an op where the strategies disagree.
type Difference struct {
	Name   string     `json:"name"`
	Pass   graph.Pass `json:"pass"`
	Greedy Choice     `json:"greedy"`
	Exact  Choice     `json:"exact"`
}

// Choice is one strategy's pick for an op: the signature and the bytes
// its boxing sent before the op.
type Choice struct {
	Signature sbp.NdSignature `json:"signature"`
	InSbp     []sbp.NdSbp     `json:"in_sbp"`
	SendBytes int64           `json:"send_bytes"`
	// TimeS is, on a cluster, the op's time and its boxings' before it.
	TimeS float64 `json:"time_s,omitempty"`
}
