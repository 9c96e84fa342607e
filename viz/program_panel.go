package viz

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// drawPanel writes the program, the current statement marked, and what
// the step (or the focused step) does.
//
// A step not run yet is for the learner to predict: its words are "?".
func (s *programScene) drawPanel(c *canvas, x, y, bottom, w float64, step int, f *Focus) {
	shown := step
	if f != nil && f.Kind == FocusStep {
		shown = f.Offset
	}
	st := s.plan.Steps[shown]
	mark := s.stmtOf[shown]
	c.text(x, y+16, "the program", 15, Ink, FontBold, AnchorStart)
	y += 22
	lines := Visible(len(s.lines), 12)
	if mark >= 0 {
		lines = visibleKeeping(len(s.lines), 12, []int{mark})
	}
	for _, k := range lines {
		y += 18
		if k == Gap {
			c.text(x, y, "  …", progSmallPx, Muted, FontMono, AnchorStart)
			continue
		}
		l := s.lines[k]
		col, font, prefix := Ink, FontMono, "  "
		if k == mark {
			col, font, prefix = Path, FontBold, "> "
		}
		t, size := fitLabel(prefix+l, font, progDetailPx, w-8)
		c.text(x, y, t, size, col, font, AnchorStart)
	}
	y += 30
	head := fmt.Sprintf("step %d of %d: %s %s", shown+1, len(s.plan.Steps), st.Kind, st.Name)
	if st.Kind == planner.StepBoxing {
		head = fmt.Sprintf("step %d of %d: box %s → %s", shown+1, len(s.plan.Steps), st.Tensor, st.To)
	}
	future := shown > step
	if future {
		head = fmt.Sprintf("step %d of %d: ?", shown+1, len(s.plan.Steps))
	}
	t, size := fitLabel(head, FontBold, 15, w-8)
	c.text(x, y, t, size, Ink, FontBold, AnchorStart)
	if future {
		c.text(x, y+progDetailPx+6, "not run yet: predict it, then step to it", progDetailPx, Muted, FontRegular, AnchorStart)
		return
	}
	for _, l := range s.stepLines(shown) {
		if y > bottom-20 {
			break
		}
		for _, w := range wrapText(l, FontRegular, progDetailPx, w-8) {
			y += progDetailPx + 6
			if y > bottom {
				break
			}
			c.text(x, y, w, progDetailPx, Ink, FontRegular, AnchorStart)
		}
	}
}

// stepLines says what step i does, in the panel's words: on a cluster
// its time (timeLines), with the memory lines what the devices hold.
func (s *programScene) stepLines(i int) []string {
	st := s.plan.Steps[i]
	var out []string
	switch st.Kind {
	case planner.StepInput:
		out = append(out, fmt.Sprintf("%s %v laid out as %s (values: %s)", st.Name, st.Shape, st.Sbp, st.Values))
	case planner.StepBoxing:
		out = append(out, fmt.Sprintf("box %s %v from %s to %s: %s", st.Tensor, st.Shape, st.From, st.To, strings.Join(st.Collectives, " + ")),
			fmt.Sprintf("sends %s in all", tensor.FormatBytes(st.SendBytes)))
	case planner.StepOp:
		out = append(out, fmt.Sprintf("signature %s", st.Signature), fmt.Sprintf("inputs as %s → %s", sbp.JoinNd(st.InSbp, " x "), st.OutSbp))
		for _, r := range st.Reuses {
			out = append(out, "reuses "+r)
		}
		if len(st.Candidates) > 1 {
			out = append(out, fmt.Sprintf("%d valid signatures; boxing to each would send:", len(st.Candidates)))
			for _, cd := range st.Candidates[:min(len(st.Candidates), 6)] {
				out = append(out, fmt.Sprintf("  %s: %s", sbp.JoinNd(cd.InSbp, " x "), tensor.FormatBytes(cd.SendBytes)))
			}
		}
	}
	out = append(out, s.timeLines(st)...)
	if s.memory {
		out = append(out, s.heldWords(i))
	}
	if st.Why != "" {
		out = append(out, st.Why)
	}
	return out
}
