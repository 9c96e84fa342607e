package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// report: the totals of both strategies and where they differ, the step
// (its signature and candidates, or its boxing's traffic per rank), every
// boxing of the plan, and the focus. With l.HideAnswers, what the steps
// after this one do (where the strategies differ on them, their
// boxings, a focus on one of them or on a device's later shards) says
// Hidden: the scene has not reached them.
func (s *programScene) report(step int, l Look) Report {
	f := l.Focus
	reached := func(i int) bool { return !l.HideAnswers || i <= step }
	var r Report
	// table adds a table of the plan's steps: those reached, with a line
	// saying the others are hidden.
	table := func(title string, t [][]string) {
		sec := Section{Title: title}
		if len(t) > 1 {
			sec.Table = t
		}
		if l.HideAnswers {
			sec.Lines = []string{"the steps after this one: " + Hidden}
		}
		if sec.Table != nil || sec.Lines != nil {
			r.Sections = append(r.Sections, sec)
		}
	}
	p := s.plan
	totals := Section{Title: fmt.Sprintf("%s plan on %s", p.Strategy, p.Placement), Lines: []string{
		fmt.Sprintf("%d steps; the boxings send %s (%d B)", len(p.Steps), tensor.FormatBytes(p.TotalSendBytes), p.TotalSendBytes),
		fmt.Sprintf("greedy sends %d B", p.GreedySendBytes),
	}}
	if p.ExactSendBytes != nil {
		totals.Lines = append(totals.Lines, fmt.Sprintf("exact sends %d B", *p.ExactSendBytes))
		if line := p.Unproven(); line != "" {
			totals.Lines = append(totals.Lines, "exact: "+line)
		}
	} else {
		totals.Lines = append(totals.Lines, "exact: "+p.ExactRefused)
	}
	if s.timed {
		times := fmt.Sprintf("greedy takes %s", cluster.FormatSeconds(p.GreedyTimeS))
		if p.ExactTimeS != nil {
			times += ", exact " + cluster.FormatSeconds(*p.ExactTimeS)
		}
		totals.Lines = append(totals.Lines, fmt.Sprintf("on %s, exact by %s: %s", p.Cluster.Name, p.Cost, cluster.FormatSeconds(p.Timing.TimeS)), times, s.timeNote())
	}
	if s.memory || s.timed {
		totals.Lines = append(totals.Lines, s.peakWords())
	}
	r.Sections = append(r.Sections, totals)
	if len(p.Differences) > 0 {
		t := [][]string{{"op", "greedy", "B", "exact", "B"}}
		if s.timed {
			t[0] = append(t[0], "greedy time", "exact time")
		}
		for _, d := range p.Differences {
			if reached(s.opStep(d.Name, d.Pass)) {
				row := []string{d.Name, d.Greedy.Signature.String(), fmt.Sprint(d.Greedy.SendBytes), d.Exact.Signature.String(), fmt.Sprint(d.Exact.SendBytes)}
				if s.timed {
					row = append(row, cluster.FormatSeconds(d.Greedy.TimeS), cluster.FormatSeconds(d.Exact.TimeS))
				}
				t = append(t, row)
			}
		}
		table("where greedy and exact differ", t)
	}
	r.Sections = append(r.Sections, s.stepSection(step))
	boxings := [][]string{{"step", "tensor", "for", "from", "to", "collective", "send B"}}
	if s.timed {
		boxings[0] = append(boxings[0], "time")
	}
	for i, st := range p.Steps {
		if st.Kind == planner.StepBoxing && reached(i) {
			row := []string{fmt.Sprint(i + 1), st.Tensor, st.For, st.From.String(), st.To.String(), strings.Join(st.Collectives, " + "), fmt.Sprint(st.SendBytes)}
			if s.timed {
				row = append(row, cluster.FormatSeconds(st.TimeS))
			}
			boxings = append(boxings, row)
		}
	}
	table("every boxing the planner inserted", boxings)
	r.Sections = append(r.Sections, focusSection(f, s.checkFocus, func() []string { return s.focusLines(*f, step, l.HideAnswers) })...)
	return r
}

// peakWords says the most each device holds at any step (Plan.Peak):
// one figure when the devices' peaks are alike, else each rank's.
func (s *programScene) peakWords() string {
	peak, at := s.plan.Peak()
	if slices.Min(peak) == slices.Max(peak) {
		return fmt.Sprintf("each device holds at most %s (step %d)", tensor.FormatBytes(peak[0]), at+1)
	}
	words := make([]string, len(peak))
	for i, b := range peak {
		words[i] = fmt.Sprintf("rank %d %s", s.plan.Program.Placement.Rank(i), tensor.FormatBytes(b))
	}
	return fmt.Sprintf("the most each device holds: %s (the largest first at step %d)", strings.Join(words, ", "), at+1)
}

// opStep is the index of the step that runs op name in pass, or the last
// step when none does.
func (s *programScene) opStep(name string, pass graph.Pass) int {
	for i, st := range s.plan.Steps {
		if st.Kind == planner.StepOp && st.Name == name && st.Pass == pass {
			return i
		}
	}
	return len(s.plan.Steps) - 1
}

// stepSection describes step i.
func (s *programScene) stepSection(i int) Section {
	st := s.plan.Steps[i]
	sec := Section{Title: fmt.Sprintf("step %d of %d (%s): %s %s", i+1, len(s.plan.Steps), st.Pass, st.Kind, st.Name), Lines: s.stepLines(i)}
	switch st.Kind {
	case planner.StepBoxing:
		sec.Table = [][]string{{"rank", "send B", "recv B"}}
		for _, rb := range st.Ranks {
			sec.Table = append(sec.Table, []string{fmt.Sprint(rb.Rank), fmt.Sprint(rb.SendBytes), fmt.Sprint(rb.RecvBytes)})
		}
	case planner.StepOp:
		if len(st.Candidates) > 0 {
			sec.Table = [][]string{{"inputs as", "output", "boxings", "send B"}}
			for _, cd := range st.Candidates {
				sec.Table = append(sec.Table, []string{sbp.JoinNd(cd.InSbp, " x "), cd.OutSbp.String(), fmt.Sprint(cd.Boxings), fmt.Sprint(cd.SendBytes)})
			}
		}
	}
	return sec
}

// focusLines describe a focused step, or what a device holds at every
// step; hide keeps them to the steps up to step (Look.HideAnswers).
func (s *programScene) focusLines(f Focus, step int, hide bool) []string {
	if f.Kind == FocusStep {
		if hide && f.Offset > step {
			return []string{fmt.Sprintf("step %d: %s", f.Offset+1, Hidden)}
		}
		return append([]string{fmt.Sprintf("step %d", f.Offset+1)}, s.stepLines(f.Offset)...)
	}
	out := []string{fmt.Sprintf("rank %d holds, step by step:", f.Rank)}
	for i, st := range s.plan.Steps {
		if hide && i > step {
			out = append(out, fmt.Sprintf("steps %d to %d: %s", i+1, len(s.plan.Steps), Hidden))
			break
		}
		for _, sh := range s.shards[i] {
			if sh.Rank == f.Rank {
				part := ""
				if sh.Partial {
					part = " (partial)"
				}
				out = append(out, fmt.Sprintf("%d. %s %v of %v as %v%s", i+1, st.Name, []int(sh.Shape), []int(st.Shape), s.sbps[i], part))
			}
		}
	}
	return out
}
