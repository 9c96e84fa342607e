package viz

import (
	"fmt"
	"github.com/stridelab/stridelab/sbp"
	"math"
	"strings"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// The program scene's picture: the title and the totals; a column per
// step of the plan (inputs, boxings, ops; the backward's on a blue band)
// with each device's shard under it; on the right the program with the
// statement of the current step marked, and what the step does.

const (
	progPanelW   = 330.0 // the right-hand panel: the program and the step
	progMinColW  = 84.0  // narrower, a column's labels stop being legible
	progMaxColW  = 168.0 // wider only spreads the same words
	progHeadH    = 108.0 // step number, name, what it does (two lines at most), its SBP
	progRowH     = 26.0  // one device's shard, at least
	progMaxRowH  = 48.0  // and at most
	progBarsH    = 70.0  // the bytes each boxing sends, as bars: at least
	progMaxBarsH = 110.0 // and at most
	progFootH    = 26.0  // the running total
	progMaxRows  = 8     // devices drawn per column; more are elided
	progSmallPx  = 12.0
	progNamePx   = 15.0
	progDetailPx = 13.0
)

var (
	backwardBand = RGB(235, 243, 250) // the backward's columns
	forwardBand  = CellFill
	differsInk   = Path
)

func (s *programScene) draw(step int, f *Focus, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	narrow := W < narrowW
	y := c.header(s.title, s.notes, W-2*margin)
	top := math.Round(y + 34)
	mainW, pw := W-progPanelW-3*margin, progPanelW
	if narrow { // the columns across the frame, the program under them
		mainW, pw = W-2*margin, W-2*margin
	}
	first, last := s.window(step, mainW)
	n := last - first
	colW := math.Floor(min(progMaxColW, mainW/float64(n))) // whole pixels: every renderer draws the same edges
	x0 := margin
	if first > 0 {
		c.text(x0, top-10, fmt.Sprintf("« %d earlier step(s)", first), progSmallPx, Muted, FontRegular, AnchorStart)
	}
	if last < len(s.plan.Steps) {
		c.text(x0+colW*float64(n), top-10, fmt.Sprintf("%d later step(s) »", len(s.plan.Steps)-last), progSmallPx, Muted, FontRegular, AnchorEnd)
	}
	ranks := s.plan.Program.Placement.Ranks()
	rows := Visible(len(ranks), progMaxRows)
	// The devices' rows take the height the columns leave, up to a
	// comfortable row; the bytes' bars take what is left under them.
	avail := H - margin - top - progHeadH - progFootH - progBarsH - 40
	if narrow {
		avail = min(avail, float64(len(rows))*progRowH) // the program needs the room under them
	}
	rowH := math.Floor(min(progMaxRowH, max(progRowH, avail/float64(len(rows)))))
	bottom := top + progHeadH + float64(len(rows))*rowH + 8
	barsH := min(progMaxBarsH, max(progBarsH, H-margin-40-(bottom+progFootH+14)))
	if narrow {
		barsH = progBarsH
	}
	for i := first; i < last; i++ {
		x := x0 + colW*float64(i-first)
		s.drawColumn(c, i, x, top, colW, bottom, rows, rowH, step, f)
	}
	s.drawBars(c, first, last, x0, colW, bottom+progFootH+14, barsH, step)
	// The pass each band is, once where it starts.
	for i := first; i < last; i++ {
		if st := s.plan.Steps[i]; i == first || s.plan.Steps[i-1].Pass != st.Pass {
			c.text(x0+colW*float64(i-first)+4, bottom+progFootH+barsH+36, string(st.Pass), progSmallPx+1, Muted, FontBold, AnchorStart)
		}
	}
	if narrow {
		s.drawPanel(c, margin, bottom+progFootH+barsH+52, H-margin, pw, step, f)
		return
	}
	s.drawPanel(c, W-progPanelW-margin, top-14, H-margin, pw, step, f)
}

// window is the steps drawn [first, last): all when they fit, else the
// widest run of columns that fits, around the current step.
func (s *programScene) window(step int, w float64) (int, int) {
	n := len(s.plan.Steps)
	fit := max(1, int(w/progMinColW))
	if n <= fit {
		return 0, n
	}
	first := min(max(step-fit/2, 0), n-fit)
	return first, first + fit
}

// drawColumn draws step i's column at x: the band, the step's words, the
// devices' shards, a boxing's arrow and the running total.
func (s *programScene) drawColumn(c *canvas, i int, x, top, w, bottom float64, rows []int, rowH float64, now int, f *Focus) {
	st := s.plan.Steps[i]
	band := forwardBand
	if st.Pass == program.Backward {
		band = backwardBand
	}
	c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + progFootH, Fill: band})
	cx := x + w/2
	inner := w - 10
	label := func(y float64, text string, px float64, col Color, font Font) {
		t, size := fitLabel(text, font, px, inner)
		c.text(cx, y, t, size, col, font, AnchorMiddle)
	}
	// The column itself is hot: its step (a step not run yet too: a
	// learner predicts by pointing at it).
	c.hot(Hot{X: x, Y: top, W: w, H: bottom - top + progFootH, Focus: Focus{Kind: FocusStep, Offset: i}})
	if i > now && !(f != nil && f.Kind == FocusStep && f.Offset == i) {
		// Not run yet: only its number, so what the plan does there is
		// for the learner to predict (hovering it, or stepping to it,
		// tells).
		label(top+16, fmt.Sprintf("%d", i+1), progSmallPx, Muted, FontRegular)
		label(top+progHeadH/2+8, "?", 22, Faint, FontBold)
		return
	}
	label(top+16, fmt.Sprintf("%d · %s", i+1, st.Kind), progSmallPx, Muted, FontRegular)
	name, what := st.Name, []string{""}
	switch st.Kind {
	case program.StepInput:
		what[0] = "input " + st.Values
		if st.Values != "arange" && st.Values != "ones" && st.Values != "zeros" {
			what[0] = "from " + st.Values
		}
	case program.StepOp:
		what = []string{st.Op + " " + strings.Join(st.Inputs, " ")}
		if TextWidth(what[0], FontMono, progSmallPx) > inner { // the op over its operands
			what = []string{st.Op, strings.Join(st.Inputs, " ")}
		}
	case program.StepBoxing:
		if strings.Contains(st.Name, "@") { // a copy made for an op: name the tensor
			name = st.Tensor
		}
		what[0] = strings.Join(st.Collectives, " + ")
	}
	label(top+36, name, progNamePx, Ink, FontBold)
	for k, l := range what {
		label(top+54+float64(k)*15, l, progSmallPx, Ink, FontMono)
	}
	sbpText := st.Out()
	if st.Kind == program.StepBoxing { // what it was is the tensor's column before; the panel says both
		sbpText = "→ " + st.To
	}
	sbpCol := Broadcast
	if st.Kind == program.StepOp && s.differs[st.Name] {
		sbpText = "≠ " + sbpText // greedy and exact pick differently here
		sbpCol = differsInk
	}
	label(top+progHeadH-10, sbpText, progDetailPx, sbpCol, FontBold)
	y := top + progHeadH
	shards := s.shards[i]
	partial := len(shards) > 0 && shards[0].Partial
	rowLabel := func(sh sbp.Shard) string { return fmt.Sprintf("r%d %v", sh.Rank, []int(sh.Shape)) }
	rowPx := min(14, max(progSmallPx, rowH*0.42)) // one size for the column: the longest label's
	for _, r := range rows {
		if r != Gap {
			rowPx = fitText(rowLabel(shards[r]), FontMono, rowPx, w-18)
		}
	}
	for _, r := range rows {
		if r == Gap {
			c.text(cx, y+rowH/2+4, fmt.Sprintf("… %d more", len(shards)-progMaxRows+1), progSmallPx, Muted, FontRegular, AnchorMiddle)
			y += rowH
			continue
		}
		sh := shards[r]
		fill := DeviceColor(sh.Position)
		if sh.Shape.Equal(st.Shape) && !partial && len(shards) > 1 {
			fill = Tint(fill, 0.55) // a whole copy
		}
		rc := Rect{X: x + 6, Y: y + 2, W: w - 12, H: rowH - 5, Fill: fill, Stroke: Faint, StrokeWidth: 1}
		if sh.Partial {
			rc.Hatch, rc.Stroke = true, hatchOn(fill)
		}
		if f != nil && f.Kind == FocusDevice && f.Rank == sh.Rank {
			rc.Stroke, rc.StrokeWidth = Ink, 2.5
		}
		c.add(rc)
		text, size := fitLabel(rowLabel(sh), FontMono, rowPx, rc.W-6)
		c.add(Text{X: cx, Y: y + rowH/2 + size*0.3, S: text, Size: size, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		c.hot(Hot{X: rc.X, Y: rc.Y, W: rc.W, H: rc.H, Focus: Focus{Kind: FocusDevice, Rank: sh.Rank, Offset: i}})
		y += rowH
	}
	if st.Kind == program.StepBoxing {
		// The boxing's arrow across the column, under its collective and bytes.
		ay := top + progHeadH - 4
		c.add(Line{X1: x + 6, Y1: ay, X2: x + w - 6, Y2: ay, Color: Path, Width: 2, Arrow: true})
	}
	label(bottom+progFootH-6, "Σ "+tensor.FormatBytes(s.running[i]), progSmallPx, Muted, FontMono)
	switch {
	case f != nil && f.Kind == FocusStep && f.Offset == i:
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + progFootH, Stroke: Path, StrokeWidth: 3})
	case i == now:
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + progFootH, Stroke: Ink, StrokeWidth: 2.5})
	case i > now: // not run yet
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + progFootH, Fill: Color{R: 255, G: 255, B: 255, A: 150}})
	}
}

// drawBars draws, under each boxing's column, a bar as tall as its bytes
// are among the plan's boxings: where the traffic is, at a glance.
func (s *programScene) drawBars(c *canvas, first, last int, x0, colW, y, barsH float64, now int) {
	var most int64
	for _, st := range s.plan.Steps {
		most = max(most, st.SendBytes)
	}
	c.text(x0, y, "bytes each boxing sends", progSmallPx, Muted, FontRegular, AnchorStart)
	base := y + barsH - 8
	c.add(Line{X1: x0, Y1: base, X2: x0 + colW*float64(last-first), Y2: base, Color: Faint, Width: 1})
	if most == 0 {
		c.text(x0, y+30, "none: every op ran on its inputs as they were", progSmallPx, Muted, FontRegular, AnchorStart)
		return
	}
	for i := first; i < last; i++ {
		st := s.plan.Steps[i]
		if st.Kind != program.StepBoxing || st.SendBytes == 0 || i > now {
			continue // a boxing not run yet is for the learner to predict
		}
		h := max(2, (barsH-40)*float64(st.SendBytes)/float64(most))
		x := x0 + colW*float64(i-first)
		fill, ink := Path, Ink
		c.add(Rect{X: x + colW*0.3, Y: base - h, W: colW * 0.4, H: h, Fill: fill})
		label := tensor.FormatBytes(st.SendBytes)
		c.text(x+colW/2, base-h-6, label, fitText(label, FontMono, progSmallPx, colW-6), ink, FontMono, AnchorMiddle)
	}
}

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
	mark := s.statementOf(st)
	c.text(x, y+16, "the program", 15, Ink, FontBold, AnchorStart)
	y += 22
	lines := Visible(len(s.lines), 12)
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
	if st.Kind == program.StepBoxing {
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
	for _, l := range s.stepLines(st) {
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

// statementOf is the index in s.lines of the statement behind a step:
// its own for the forward's, the one that needed it for a boxing, grad
// for the backward's; -1 when none is found.
func (s *programScene) statementOf(st program.Step) int {
	name := st.Name
	if st.Kind == program.StepBoxing {
		name = st.For
	}
	for k, l := range s.lines {
		lhs, _, ok := strings.Cut(l, "=")
		switch {
		case st.Pass == program.Backward && strings.HasPrefix(l, "grad "):
			return k
		case st.Pass == program.Forward && ok && strings.TrimSpace(lhs) == name:
			return k
		}
	}
	return -1
}

// stepLines says what a step does, in the panel's words.
func (s *programScene) stepLines(st program.Step) []string {
	var out []string
	switch st.Kind {
	case program.StepInput:
		out = append(out, fmt.Sprintf("%s %v laid out as %s (values: %s)", st.Name, st.Shape, st.Sbp, st.Values))
	case program.StepBoxing:
		out = append(out, fmt.Sprintf("box %s %v from %s to %s: %s", st.Tensor, st.Shape, st.From, st.To, strings.Join(st.Collectives, " + ")),
			fmt.Sprintf("sends %s in all", tensor.FormatBytes(st.SendBytes)))
	case program.StepOp:
		out = append(out, fmt.Sprintf("signature %s", st.Signature), fmt.Sprintf("inputs as %s → %s", strings.Join(st.InSbp, " x "), st.OutSbp))
		for _, r := range st.Reuses {
			out = append(out, "reuses "+r)
		}
		if len(st.Candidates) > 1 {
			out = append(out, fmt.Sprintf("%d valid signatures; boxing to each would send:", len(st.Candidates)))
			for _, cd := range st.Candidates[:min(len(st.Candidates), 6)] {
				out = append(out, fmt.Sprintf("  %s: %s", strings.Join(cd.InSbp, " x "), tensor.FormatBytes(cd.SendBytes)))
			}
		}
	}
	if st.Why != "" {
		out = append(out, st.Why)
	}
	return out
}
