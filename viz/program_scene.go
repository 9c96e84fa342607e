package viz

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// The program scene shows a whole program on a mesh as OneFlow's global
// view plans it: a column per step of the plan (an input laid out, an op
// on every device's shards, or a boxing), each device's shard under it
// with its SBP, each boxing an arrow labelled with its collective and
// bytes, the forward and the backward told apart, and a running total of
// the bytes sent. The animation walks the steps; a step's column, hovered
// or clicked, says its signature, the candidates it had and what each
// would have cost. The plan comes from sbp/program; the scene only draws
// it.
//
// On a cluster (the cluster key) the plan is timed, and the scene gains a
// time axis: under each step's column a bar as tall as its time among
// the plan's steps, an op's compute and a boxing's communication in two
// marks, and the running time under the running bytes; hovering a boxing
// says the collective of each of its steps, the mesh dim whose link it
// crosses, that link's α and β and the time, and hovering an op its
// FLOPs and bytes on the slowest device and the side of the roofline it
// is on. With the memory key at show, what each device holds at every
// step (Step.HeldBytes) is a line per device across the steps, its peak
// marked: memory needs no cluster.

// programScene holds what the frames draw.
type programScene struct {
	spec    Spec
	plan    *planner.Plan
	title   string
	heading string // the title as drawn: on a cluster, each number kept with its unit
	notes   []string
	lines   []string        // the program's source, one statement a line
	running []int64         // bytes sent up to and including each step
	differs map[string]bool // ops where greedy and exact pick differently
	shards  [][]sbp.Shard   // every step's output shards, in placement order
	sbps    []sbp.NdSbp     // every step's output SBP

	timed    bool          // the plan is on a cluster: the time axis is drawn
	runningS []float64     // on a cluster, the time up to and including each step
	memory   bool          // the memory key is show: the memory lines are drawn
	groups   []memoryGroup // then the devices that hold alike, a line each
	modules  []string      // each step's module path (modulesOf), "" where no comment says
	stmtOf   []int         // each step's statement (statementsOf)
}

func buildProgramScene(ctx context.Context, spec Spec) (*Scene, error) {
	memory, err := memoryShown(spec.Get("memory"))
	if err != nil {
		return nil, err
	}
	plan, err := plans.plan(ctx, planKeyOf(spec))
	if err != nil {
		return nil, err
	}
	prog, strategy := plan.Program, string(plan.Strategy)
	s := &programScene{spec: spec, plan: plan, differs: map[string]bool{}, timed: plan.Cluster != nil, memory: memory, stmtOf: statementsOf(plan)}
	s.modules = modulesOf(plan, s.stmtOf)
	if memory {
		s.groups = s.memoryGroups()
	}
	for _, d := range plan.Differences {
		s.differs[d.Name] = true
	}
	for _, st := range strings.Split(ProgramOneLine(prog.Source), "; ") {
		if st = strings.TrimSpace(st); st != "" {
			s.lines = append(s.lines, st)
		}
	}
	var total int64
	var totalS float64
	boxings := 0
	for _, st := range plan.Steps {
		total += st.SendBytes
		s.running = append(s.running, total)
		if s.timed {
			totalS += st.TimeS
			s.runningS = append(s.runningS, totalS)
		}
		if st.Kind == planner.StepBoxing {
			boxings++
		}
		sh, err := sbp.Shards(st.Shape, prog.Placement, st.Out())
		if err != nil {
			return nil, err
		}
		s.sbps, s.shards = append(s.sbps, st.Out()), append(s.shards, sh)
	}
	verb := "send"
	if boxings == 1 {
		verb = "sends"
	}
	s.title = fmt.Sprintf("a program on %v, %s: %d boxing%s %s %s", prog.Placement, strategy, boxings, plural(boxings), verb, tensor.FormatBytes(total))
	s.heading = s.title
	if s.timed {
		if plan.Strategy == planner.Exact {
			strategy += " by " + string(plan.Cost) // what it minimised
		}
		head := fmt.Sprintf("a program on %v, %s: %d boxing%s %s ", prog.Placement, strategy, boxings, plural(boxings), verb)
		sent, took := tensor.FormatBytes(total), cluster.FormatSeconds(plan.Timing.TimeS)
		s.title = fmt.Sprintf("%s%s, %s on %s", head, sent, took, plan.Cluster.Name)
		s.heading = fmt.Sprintf("%s%s, %s on %s", head, unbroken(sent), unbroken(took), plan.Cluster.Name)
	}
	exact := "exact: not compared, its search is bigger than a scene rebuilt on every keystroke allows (the report says how big; --strategy exact plans it)"
	if plan.ExactSendBytes != nil {
		exact = fmt.Sprintf("exact sends %s, greedy %s", tensor.FormatBytes(*plan.ExactSendBytes), tensor.FormatBytes(plan.GreedySendBytes))
		if s.timed && plan.ExactTimeS != nil {
			exact = fmt.Sprintf("exact sends %s in %s, greedy %s in %s", tensor.FormatBytes(*plan.ExactSendBytes), cluster.FormatSeconds(*plan.ExactTimeS),
				tensor.FormatBytes(plan.GreedySendBytes), cluster.FormatSeconds(plan.GreedyTimeS))
		}
		if len(plan.Differences) > 0 {
			exact += fmt.Sprintf("; they differ at %s, marked ≠", fmt.Sprintf("%d op%s", len(plan.Differences), plural(len(plan.Differences))))
		}
	}
	s.notes = []string{"one column a step: an op runs on every device's shards, a boxing (arrow) moves data; below, each device's shard", exact}
	if s.timed {
		s.notes = append(s.notes, s.timeNote())
	}
	return &Scene{Spec: spec, Title: s.title, Steps: len(plan.Steps), impl: s, model: plan}, nil
}

// memoryShown reads the memory key: "" or "hide" hides the memory
// lines, "show" draws them.
func memoryShown(v string) (bool, error) {
	switch v {
	case "", "hide":
		return false, nil
	case "show":
		return true, nil
	}
	return false, onField("memory", fmt.Errorf("viz: memory %q: choose hide or show", v))
}

// timeNote says the plan's time on its cluster (the title gives the
// sum): its two parts and the time with communication overlapped
// (planner.Timing), and a device that would hold more than its memory
// (Plan.Capacity).
func (s *programScene) timeNote() string {
	t, c := s.plan.Timing, s.plan.Cluster
	note := fmt.Sprintf("communication %s + compute %s, one after the other; %s with communication overlapping the compute it does not wait for",
		cluster.FormatSeconds(t.CommTimeS), cluster.FormatSeconds(t.ComputeTimeS), cluster.FormatSeconds(t.OverlapTimeS))
	capacity := int64(min(c.Device.MemCapacity, math.MaxInt64))
	if err := s.plan.Capacity(capacity, c.Name+" device"); err != nil {
		return note + "; over memory: " + err.Error()
	}
	return note
}

// ProgramModel is the meaning of a program scene: its plan, as
// `stridelab sbp program --json` writes it. Every scene of one program
// shares it (Build plans a program once): read it, never change it.
type ProgramModel = planner.Plan

// work is the program run on simulated devices, checked against one CPU.
func (s *programScene) work() Work {
	last := s.plan.Steps[len(s.plan.Steps)-1]
	return &ProgramWork{What: fmt.Sprintf("the program on %d simulated devices (%s)", s.plan.Program.Placement.Size(), s.plan.Strategy), Plan: s.plan, Out: last.Shape}
}

// ProgramWork is a program scene's run: every step of Plan on sbp's
// simulated devices, each named tensor and gradient checked against the
// single-device run.
type ProgramWork struct {
	What string
	Plan *planner.Plan
	Out  tensor.Shape
}

func (w *ProgramWork) Title() string          { return w.What }
func (w *ProgramWork) OutShape() tensor.Shape { return w.Out }
func (w *ProgramWork) work()                  {}

// checkFocus: a step of the plan or a device of the placement.
func (s *programScene) checkFocus(f Focus) error {
	switch f.Kind {
	case FocusStep:
		if f.Offset >= 0 && f.Offset < len(s.plan.Steps) {
			return nil
		}
	case FocusDevice:
		for _, r := range s.plan.Program.Placement.Ranks() {
			if r == f.Rank {
				return nil
			}
		}
	}
	return fmt.Errorf("viz: program: nothing to focus on as %v: the plan has steps 1 to %d and ranks %v", f, len(s.plan.Steps), s.plan.Program.Placement.Ranks())
}
