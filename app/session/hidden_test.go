package session

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// TestReportHidesTheAnswerUntilAnswered walks every built-in lesson step
// with a question. While it is open, with the pointer on what the
// question asks about (or on its answer), the results panel (the
// session's Report, what the desktop app and a script's results file
// show) holds none of the answer: not the offsets the cell reads, the
// cells that read an element, the ranks that hold a cell or a rank's
// block, the boxing of a later step; and the computed values are hidden.
// After the right click the same focus shows all of it.
func TestReportHidesTheAnswerUntilAnswered(t *testing.T) {
	ls, s := builtinLessons(t)
	s.StartComputing(tensor.CPU{}, results.Compute)
	defer s.Close()
	asked := 0
	for _, l := range ls {
		for _, st := range l.Steps {
			q := st.Question
			if q == nil {
				continue
			}
			asked++
			where := fmt.Sprintf("%s step %d (ask: %s)", l.ID, st.N, q.Spelled)
			if err := s.OpenLesson(l, st.N); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			sc := s.Scene()
			a, err := q.Answer(sc)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			f := pointAt(q, a)
			s.Hover(&f)
			give := giveaway(q, a, sc)

			// The check finds the answer in the shown report at the
			// question's step where it says it (a boxing question's
			// answer only shows after the boxing), and always after the
			// right click (below).
			shown := sc.ReportLook(s.Step(), viz.Look{Focus: &f})
			if q.Kind != "owner" && q.Kind != "holds" && !give(shown) {
				t.Fatalf("%s: the check finds no answer in the report even when shown (focus %s):\n%s", where, f, shown)
			}
			hidden := withoutLesson(s.Report())
			if give(hidden) {
				t.Errorf("%s: with the question open and the pointer on %s, the report gives the answer %s away:\n%s", where, f, a.Text, hidden)
			}
			// Nothing the shown focus section says about f (past its
			// name, and that no other section says) is in the hidden
			// report.
			lines, others := allLines(hidden), allLines(withoutFocus(shown))
			for _, line := range focusLines(shown)[1:] {
				if slices.Contains(lines, line) && !slices.Contains(others, line) {
					t.Errorf("%s: with the question open the report says %q about %s", where, line, f)
				}
			}
			if sec := waitResults(t, s); !slices.Equal(sec.Lines, []string{"values " + viz.Hidden}) || sec.Table != nil {
				t.Errorf("%s: with the question open the computed values are shown: %+v", where, sec)
			}

			right := rightClick(a)
			s.Click(&right) // the answer: the scene moves to the reveal
			if !s.Tutor().Right {
				t.Fatalf("%s: a click on %s was not right: %s", where, right, s.Tutor().Feedback)
			}
			s.Hover(&f)
			revealed := withoutLesson(s.Report())
			if !give(revealed) {
				t.Errorf("%s: after the right click the report still hides the answer:\n%s", where, revealed)
			}
			if want := s.Scene().Report(s.Step(), &f); revealed.String() != want.String() {
				t.Errorf("%s: after the right click the report is not the scene's whole report:\n%s\nwant\n%s", where, revealed, want)
			}
			if sec := waitResults(t, s); len(sec.Lines)+len(sec.Table) < 2 || strings.Contains(strings.Join(sec.Lines, "\n"), viz.Hidden) {
				t.Errorf("%s: after the right click the computed values are still hidden: %+v", where, sec)
			}
			s.CloseLesson()
		}
	}
	if asked == 0 {
		t.Fatal("no lesson asks a question")
	}
}

// pointAt is where the learner's pointer is: on what the question asks
// about, or for a program's question on the step that answers it.
func pointAt(q *lessons.Question, a *lessons.Answer) viz.Focus {
	if q.Name != "" {
		t := a.Targets[0]
		return viz.Focus{Kind: t.Kind, Offset: t.Offset}
	}
	return viz.Focus{Kind: q.About.Kind, Operand: q.About.Operand, Index: q.About.Index, Offset: q.About.Offset, Rank: q.About.Rank}
}

// rightClick is a right answer's focus: a target, or a holds question's
// first cell of the rank's block.
func rightClick(a *lessons.Answer) viz.Focus {
	if len(a.Targets) > 0 {
		t := a.Targets[0]
		return viz.Focus{Kind: t.Kind, Operand: t.Operand, Index: t.Index, Offset: t.Offset, Rank: t.Rank}
	}
	idx := make([]int, len(a.Ranges))
	for i, r := range a.Ranges {
		idx[i] = r[0]
	}
	return viz.Focus{Kind: viz.FocusCell, Operand: "global", Index: idx}
}

var formulaEnd = regexp.MustCompile(`^\s*= (\d+)$`)

// giveaway returns a check that a report, with the pointer on pointAt,
// says the answer: the end of the asked cell's offset formula (reads) or
// the offsets a reduce combines, the cells drawn that read the element
// (readers), the rank that holds the cell at a local index (owner), the
// rank's block (holds), the boxing's row (boxes) or the step's lines
// (grad-sbp).
func giveaway(q *lessons.Question, a *lessons.Answer, sc *viz.Scene) func(viz.Report) bool {
	anyLine := func(r viz.Report, ok func(string) bool) bool { return slices.ContainsFunc(allLines(r), ok) }
	switch q.Kind {
	case "reads":
		offs := map[string]bool{}
		for _, t := range a.Targets {
			offs[strconv.Itoa(t.Offset)] = true
		}
		return func(r viz.Report) bool {
			return anyLine(r, func(l string) bool {
				if m := formulaEnd.FindStringSubmatch(l); m != nil {
					return offs[m[1]]
				}
				if rest, ok := strings.CutPrefix(l, "offsets "); ok {
					return slices.ContainsFunc(strings.Split(rest, ", "), func(w string) bool { return offs[w] })
				}
				return false
			})
		}
	case "readers":
		first := fmt.Sprint(a.Targets[0].Index)
		return func(r viz.Report) bool {
			return anyLine(r, func(l string) bool {
				return strings.HasPrefix(l, "among the cells drawn:") && strings.Contains(l, first)
			})
		}
	case "owner":
		return func(r viz.Report) bool {
			return anyLine(r, func(l string) bool {
				for _, t := range a.Targets {
					if strings.HasPrefix(l, fmt.Sprintf("rank %d ", t.Rank)) && strings.Contains(l, " at local ") {
						return true
					}
				}
				return false
			})
		}
	case "holds":
		block := viz.FormatRanges(a.Ranges)
		return func(r viz.Report) bool {
			return anyLine(r, func(l string) bool { return strings.Contains(l, block) })
		}
	case "boxes", "grad-sbp":
		step := a.Targets[0].Offset + 1
		return func(r viz.Report) bool {
			for _, sec := range r.Sections {
				for _, row := range sec.Table[min(len(sec.Table), 1):] {
					if sec.Title == "every boxing the planner inserted" && row[0] == strconv.Itoa(step) {
						return true
					}
				}
				if sec.Title == "focus" && len(sec.Lines) > 1 && sec.Lines[0] == fmt.Sprintf("step %d", step) {
					return true
				}
			}
			return false
		}
	}
	panic("no giveaway for question kind " + q.Kind)
}

// allLines are a report's lines and its tables' cells, each row joined.
func allLines(r viz.Report) []string {
	var out []string
	for _, sec := range r.Sections {
		out = append(out, sec.Lines...)
		for _, row := range sec.Table {
			out = append(out, row...)
		}
	}
	return out
}

func focusLines(r viz.Report) []string {
	for _, sec := range r.Sections {
		if sec.Title == "focus" {
			return sec.Lines
		}
	}
	return []string{""}
}

func withoutFocus(r viz.Report) viz.Report {
	r.Sections = slices.DeleteFunc(slices.Clone(r.Sections), func(s viz.Section) bool { return s.Title == "focus" })
	return r
}

// withoutLesson is r without the open lesson's section (its question).
func withoutLesson(r viz.Report) viz.Report {
	r.Sections = slices.DeleteFunc(slices.Clone(r.Sections), func(s viz.Section) bool { return strings.HasPrefix(s.Title, "lesson: ") })
	return r
}

// waitResults waits for the session's computed section.
func waitResults(t *testing.T, s *Session) viz.Section {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sec, ready := s.Results()
		if ready {
			return sec
		}
		if time.Now().After(deadline) {
			t.Fatalf("no computed results after 20 s: %+v", sec)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestALinkLeavesTheLesson: showing another step of the lesson step's
// scene (as the playground's scrubber does, through the scene's hash)
// stays in the lesson, so the question stays open and its answers
// hidden; a link to another scene leaves it, so a click pins again.
func TestALinkLeavesTheLesson(t *testing.T) {
	ls, s := builtinLessons(t)
	for _, l := range ls {
		for _, st := range l.Steps {
			if err := s.OpenLesson(l, st.N); err != nil {
				t.Fatal(err)
			}
			at := s.Spec()
			at.Step = (at.Step + 1) % s.Steps()
			spec, _, err := viz.ParseHash(at.Hash())
			if err != nil {
				t.Fatal(err)
			}
			s.Show(spec)
			if s.Tutor() == nil {
				t.Errorf("%s step %d: showing step %d of its scene (%s) left the lesson", l.ID, st.N, at.Step, at.Hash())
			}
		}
	}
	s.Show(mustExample("binary"))
	if s.Tutor() != nil {
		t.Fatal("a link to another scene stayed in the lesson")
	}
	f := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{0, 0}}
	s.Click(&f)
	if s.Pinned() == nil {
		t.Errorf("after leaving the lesson a click does not pin")
	}
}
