package viz

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// report: the totals of both strategies and where they differ, the step
// (its signature and candidates, or its boxing's traffic per rank), every
// boxing of the plan, and the focus.
func (s *programScene) report(step int, f *Focus) Report {
	p := s.plan
	totals := Section{Title: fmt.Sprintf("%s plan on %s", p.Strategy, p.Placement), Lines: []string{
		fmt.Sprintf("%d steps; the boxings send %s (%d B)", len(p.Steps), tensor.FormatBytes(p.TotalSendBytes), p.TotalSendBytes),
		fmt.Sprintf("greedy sends %d B", p.GreedySendBytes),
	}}
	if p.ExactSendBytes != nil {
		totals.Lines = append(totals.Lines, fmt.Sprintf("exact sends %d B", *p.ExactSendBytes))
	} else {
		totals.Lines = append(totals.Lines, "exact: "+p.ExactRefused)
	}
	r := Report{Sections: []Section{totals}}
	if len(p.Differences) > 0 {
		t := [][]string{{"op", "greedy", "B", "exact", "B"}}
		for _, d := range p.Differences {
			t = append(t, []string{d.Name, d.Greedy.Signature, fmt.Sprint(d.Greedy.SendBytes), d.Exact.Signature, fmt.Sprint(d.Exact.SendBytes)})
		}
		r.Sections = append(r.Sections, Section{Title: "where greedy and exact differ", Table: t})
	}
	r.Sections = append(r.Sections, s.stepSection(step))
	boxings := [][]string{{"step", "tensor", "for", "from", "to", "collective", "send B"}}
	for i, st := range p.Steps {
		if st.Kind == program.StepBoxing {
			boxings = append(boxings, []string{fmt.Sprint(i + 1), st.Tensor, st.For, st.From, st.To, strings.Join(st.Collectives, " + "), fmt.Sprint(st.SendBytes)})
		}
	}
	if len(boxings) > 1 {
		r.Sections = append(r.Sections, Section{Title: "every boxing the planner inserted", Table: boxings})
	}
	r.Sections = append(r.Sections, focusSection(f, s.checkFocus, func() []string { return s.focusLines(*f) })...)
	return r
}

// stepSection describes step i.
func (s *programScene) stepSection(i int) Section {
	st := s.plan.Steps[i]
	sec := Section{Title: fmt.Sprintf("step %d of %d (%s): %s %s", i+1, len(s.plan.Steps), st.Pass, st.Kind, st.Name), Lines: s.stepLines(st)}
	switch st.Kind {
	case program.StepBoxing:
		sec.Table = [][]string{{"rank", "send B", "recv B"}}
		for _, rb := range st.Ranks {
			sec.Table = append(sec.Table, []string{fmt.Sprint(rb.Rank), fmt.Sprint(rb.SendBytes), fmt.Sprint(rb.RecvBytes)})
		}
	case program.StepOp:
		if len(st.Candidates) > 0 {
			sec.Table = [][]string{{"inputs as", "output", "boxings", "send B"}}
			for _, cd := range st.Candidates {
				sec.Table = append(sec.Table, []string{strings.Join(cd.InSbp, " x "), cd.OutSbp, fmt.Sprint(cd.Boxings), fmt.Sprint(cd.SendBytes)})
			}
		}
	}
	return sec
}

// focusLines describe a focused step, or what a device holds at every
// step.
func (s *programScene) focusLines(f Focus) []string {
	if f.Kind == FocusStep {
		return append([]string{fmt.Sprintf("step %d", f.Offset+1)}, s.stepLines(s.plan.Steps[f.Offset])...)
	}
	out := []string{fmt.Sprintf("rank %d holds, step by step:", f.Rank)}
	for i, st := range s.plan.Steps {
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
