package viz

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// The program scene's picture: the title and the totals; a column per
// step of the plan (inputs, boxings, ops; the backward's on a blue band)
// with each device's shard under it; on the right the program with the
// statement of the current step marked, and what the step does.

const (
	progPanelW     = 330.0 // the right-hand panel: the program and the step
	progMinColW    = 84.0  // narrower, a column's labels stop being legible
	progMaxColW    = 168.0 // wider only spreads the same words
	progHeadH      = 108.0 // step number, name, what it does (two lines at most), its SBP
	progRowH       = 26.0  // one device's shard, at least
	progMaxRowH    = 48.0  // and at most
	progBarsH      = 70.0  // the bytes each boxing sends, as bars: at least
	progTimeBarsH  = 100.0 // on a cluster, each step's time as bars: at least, but on a narrow frame
	progMaxBarsH   = 110.0 // and at most
	progFootH      = 26.0  // the running total
	progFootLineH  = 16.0  // on a cluster, the running time under it
	progMemH       = 100.0 // the memory lines: their title, the lines, the peaks
	progNarrowMemH = 84.0  // and on a phone or a short frame
	progMaxRows    = 8     // devices drawn per column; more are elided
	progSmallPx    = 12.0
	progNamePx     = 15.0
	progDetailPx   = 13.0
)

var (
	backwardBand = RGB(235, 243, 250) // the backward's columns
	forwardBand  = CellFill
	differsInk   = Path
)

func (s *programScene) draw(step int, f *Focus, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	narrow := W < narrowW
	ranks := s.plan.Program.Placement.Ranks()
	rows := Visible(len(ranks), progMaxRows)
	notes, sz := s.notes, s.sizes(narrow)
	if s.timed || s.memory {
		// The charts under the columns before the notes: on a phone, or
		// where the frame is too short for them all at their full
		// sizes, they take less room, and then, if they still do not
		// fit, the notes go (the report says them).
		fits := func(notes []string, sz progSizes) bool {
			top := math.Round(newCanvas(Size{W: c.frame.W, H: c.frame.H}).header(s.heading, notes, W-2*margin) + 34)
			return top+progHeadH+float64(len(rows))*progRowH+8+sz.foot+14+sz.barsMin+sz.memH+22 <= H-margin
		}
		if !narrow && !fits(notes, sz) {
			sz = s.sizes(true)
		}
		if narrow || !fits(notes, sz) {
			notes = nil
		}
	}
	y := c.header(s.heading, notes, W-2*margin)
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
	foot, memH, barsMin := sz.foot, sz.memH, sz.barsMin
	// The devices' rows take the height the columns leave, up to a
	// comfortable row; the bars take what is left under them.
	avail := H - margin - top - progHeadH - foot - barsMin - memH - 40
	if narrow {
		avail = min(avail, float64(len(rows))*progRowH) // the program needs the room under them
	}
	rowH := math.Floor(min(progMaxRowH, max(progRowH, avail/float64(len(rows)))))
	bottom := top + progHeadH + float64(len(rows))*rowH + 8
	barsH := min(progMaxBarsH, max(barsMin, H-margin-40-(bottom+foot+14)-memH))
	if narrow {
		barsH = barsMin
	}
	for i := first; i < last; i++ {
		x := x0 + colW*float64(i-first)
		s.drawColumn(c, i, x, top, colW, bottom, foot, rows, rowH, step, f)
	}
	if s.timed {
		s.drawTimes(c, first, last, x0, colW, bottom+foot+14, barsH, step)
	} else {
		s.drawBars(c, first, last, x0, colW, bottom+foot+14, barsH, step)
	}
	if s.memory {
		s.drawMemory(c, first, last, x0, colW, bottom+foot+barsH+14, memH, step)
	}
	// The pass each band is, once where it starts.
	for i := first; i < last; i++ {
		if st := s.plan.Steps[i]; i == first || s.plan.Steps[i-1].Pass != st.Pass {
			c.text(x0+colW*float64(i-first)+4, bottom+foot+barsH+memH+36, string(st.Pass), progSmallPx+1, Muted, FontBold, AnchorStart)
		}
	}
	if narrow {
		s.drawPanel(c, margin, bottom+foot+barsH+memH+52, H-margin, pw, step, f)
		return
	}
	s.drawPanel(c, W-progPanelW-margin, top-14, H-margin, pw, step, f)
}

// progSizes are the heights under a program's columns that depend on
// what the scene draws: the columns' foot (the running bytes, and on a
// cluster the running time), the least height of the bars (the bytes
// each boxing sends, or on a cluster each step's time) and the memory
// lines' (0 when they are not drawn).
type progSizes struct {
	foot, barsMin, memH float64
}

// sizes are the heights under the columns, at their full sizes or, on a
// phone or a short frame, compact.
func (s *programScene) sizes(compact bool) progSizes {
	sz := progSizes{foot: progFootH, barsMin: progBarsH}
	if s.timed {
		sz.foot += progFootLineH
		if !compact {
			sz.barsMin = progTimeBarsH
		}
	}
	if s.memory {
		sz.memH = progMemH
		if compact {
			sz.memH = progNarrowMemH
		}
	}
	return sz
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
func (s *programScene) drawColumn(c *canvas, i int, x, top, w, bottom, foot float64, rows []int, rowH float64, now int, f *Focus) {
	st := s.plan.Steps[i]
	band := forwardBand
	if st.Pass == program.Backward {
		band = backwardBand
	}
	c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + foot, Fill: band})
	cx := x + w/2
	inner := w - 10
	label := func(y float64, text string, px float64, col Color, font Font) {
		t, size := fitLabel(text, font, px, inner)
		c.text(cx, y, t, size, col, font, AnchorMiddle)
	}
	// The column itself is hot: its step (a step not run yet too: a
	// learner predicts by pointing at it).
	c.hot(Hot{X: x, Y: top, W: w, H: bottom - top + foot, Focus: Focus{Kind: FocusStep, Offset: i}})
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
		what[0] = "input " + st.Values // input arange, ones, zeros
		if st.Values == program.ValuesUniform || program.FromFile(st.Values) {
			what[0] = "from " + st.Values
			if TextWidth(what[0], FontMono, progSmallPx) > inner { // the word over its source
				what = []string{"from", st.Values}
			}
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
		if TextWidth(what[0], FontMono, progSmallPx) > inner { // reduce-scatter over two lines, at its hyphen
			if a, b, ok := strings.Cut(what[0], "-"); ok {
				what = []string{a + "-", b}
			}
		}
	}
	label(top+36, name, progNamePx, Ink, FontBold)
	for k, l := range what {
		label(top+54+float64(k)*15, l, progSmallPx, Ink, FontMono)
	}
	sbpText := st.Out().String()
	if st.Kind == program.StepBoxing { // what it was is the tensor's column before; the panel says both
		sbpText = "→ " + st.To.String()
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
	// A label too long for one line (a batch's shape, [2 8 16]) goes on
	// two, the rank over the shape, where the rows are tall enough.
	twoLines := false
	for _, r := range rows {
		if r != Gap && rowH >= 2*MinText+10 && TextWidth(rowLabel(shards[r]), FontMono, rowPx) > w-18 {
			twoLines = true
		}
	}
	if twoLines {
		rowPx = min(14, max(MinText, (rowH-10)/2))
		for _, r := range rows {
			if r != Gap {
				rowPx = fitText(fmt.Sprint([]int(shards[r].Shape)), FontMono, rowPx, w-18)
			}
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
		if twoLines {
			text, size := fitLabel(fmt.Sprint([]int(sh.Shape)), FontMono, rowPx, rc.W-6)
			c.add(Text{X: cx, Y: y + rowH/2 - size*0.2, S: fmt.Sprintf("r%d", sh.Rank), Size: size, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
			c.add(Text{X: cx, Y: y + rowH/2 + size*0.9, S: text, Size: size, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		} else {
			text, size := fitLabel(rowLabel(sh), FontMono, rowPx, rc.W-6)
			c.add(Text{X: cx, Y: y + rowH/2 + size*0.3, S: text, Size: size, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		}
		c.hot(Hot{X: rc.X, Y: rc.Y, W: rc.W, H: rc.H, Focus: Focus{Kind: FocusDevice, Rank: sh.Rank, Offset: i}})
		y += rowH
	}
	if st.Kind == program.StepBoxing {
		// The boxing's arrow across the column, under its collective and bytes.
		ay := top + progHeadH - 4
		c.add(Line{X1: x + 6, Y1: ay, X2: x + w - 6, Y2: ay, Color: Path, Width: 2, Arrow: true})
	}
	label(bottom+progFootH-6, "Σ "+tensor.FormatBytes(s.running[i]), progSmallPx, Muted, FontMono)
	if s.timed {
		label(bottom+progFootH-6+progFootLineH, runningTime(s.runningS[i]), progSmallPx, Muted, FontMono)
	}
	switch {
	case f != nil && f.Kind == FocusStep && f.Offset == i:
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + foot, Stroke: Path, StrokeWidth: 3})
	case i == now:
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + foot, Stroke: Ink, StrokeWidth: 2.5})
	case i > now: // not run yet
		c.add(Rect{X: x + 2, Y: top, W: w - 4, H: bottom - top + foot, Fill: Color{R: 255, G: 255, B: 255, A: 150}})
	}
}

// runningTime is the foot's running time: "Σ 13.1 µs", "Σ 0 s" before
// any step takes time (a bare 0 would read as the bytes' line).
func runningTime(t float64) string {
	if t == 0 {
		return "Σ 0 s"
	}
	return "Σ " + cluster.FormatSeconds(t)
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

// drawTimes draws, under each step's column on a cluster, a bar as tall
// as the step's time among the plan's steps, with the time over it: an
// op's compute in one mark, a boxing's communication in the other
// (timeMark), and their legend beside the title. A step not run yet has
// no bar: its time is for the learner to predict.
func (s *programScene) drawTimes(c *canvas, first, last int, x0, colW, y, barsH float64, now int) {
	most := 0.0
	for _, st := range s.plan.Steps {
		most = max(most, st.TimeS)
	}
	right := x0 + colW*float64(last-first)
	title := "each step's time"
	c.text(x0, y, title, progSmallPx, Muted, FontRegular, AnchorStart)
	if lx := x0 + TextWidth(title, FontRegular, progSmallPx) + 16; lx+timeLegendW <= right {
		s.timeLegend(c, lx, y)
	} else { // a narrow frame: the legend under the title, the bars a line shorter
		s.timeLegend(c, x0, y+progSmallPx+6)
		y += progSmallPx + 6
		barsH -= progSmallPx + 6
	}
	base := y + barsH - 8
	c.add(Line{X1: x0, Y1: base, X2: right, Y2: base, Color: Faint, Width: 1})
	if most == 0 {
		return
	}
	for i := first; i < last; i++ {
		st := s.plan.Steps[i]
		if st.TimeS == 0 || i > now {
			continue
		}
		h := max(2, (barsH-40)*st.TimeS/most)
		x := x0 + colW*float64(i-first)
		c.add(timeMark(st.Kind, x+colW*0.3, base-h, colW*0.4, h))
		label := cluster.FormatSeconds(st.TimeS)
		c.text(x+colW/2, base-h-6, label, fitText(label, FontMono, progSmallPx, colW-6), Ink, FontMono, AnchorMiddle)
	}
}

// timeMark is the bar of a step's time: solid ComputeInk for an op,
// CommInk hatched for a boxing.
func timeMark(k program.StepKind, x, y, w, h float64) Rect {
	if k == program.StepBoxing {
		return Rect{X: x, Y: y, W: w, H: h, Fill: CommInk, Stroke: hatchOn(CommInk), StrokeWidth: 1, Hatch: true}
	}
	return Rect{X: x, Y: y, W: w, H: h, Fill: ComputeInk}
}

// timeLegendW is the width timeLegend draws.
var timeLegendW = 2*(16+6) + TextWidth("compute", FontRegular, progSmallPx) + 14 + TextWidth("communication", FontRegular, progSmallPx)

// timeLegend draws the two marks of drawTimes with their names, from x
// along the baseline y.
func (s *programScene) timeLegend(c *canvas, x, y float64) {
	for _, m := range []struct {
		k    program.StepKind
		name string
	}{{program.StepOp, "compute"}, {program.StepBoxing, "communication"}} {
		c.add(timeMark(m.k, x, y-10, 16, 11))
		c.text(x+22, y, m.name, progSmallPx, Ink, FontRegular, AnchorStart)
		x += 22 + TextWidth(m.name, FontRegular, progSmallPx) + 14
	}
}

// memoryGroup is the devices that hold alike at every step: one line.
type memoryGroup struct {
	pos   []int // their positions in the placement
	ranks []int
}

// memoryGroups groups the placement's devices by what they hold at
// every step (Step.HeldBytes), in placement order.
func (s *programScene) memoryGroups() []memoryGroup {
	var out []memoryGroup
	ranks := s.plan.Program.Placement.Ranks()
	same := func(a, b int) bool {
		for _, st := range s.plan.Steps {
			if st.HeldBytes[a] != st.HeldBytes[b] {
				return false
			}
		}
		return true
	}
next:
	for pos := range ranks {
		for g := range out {
			if same(out[g].pos[0], pos) {
				out[g].pos, out[g].ranks = append(out[g].pos, pos), append(out[g].ranks, ranks[pos])
				continue next
			}
		}
		out = append(out, memoryGroup{pos: []int{pos}, ranks: []int{ranks[pos]}})
	}
	return out
}

// name is the group's ranks: "r2", "r0–r3" for a run, else "r0, r2".
func (g memoryGroup) name() string {
	lo, hi := g.ranks[0], g.ranks[len(g.ranks)-1]
	switch {
	case len(g.ranks) == 1:
		return fmt.Sprintf("r%d", lo)
	case hi-lo == len(g.ranks)-1 && slices.IsSorted(g.ranks):
		return fmt.Sprintf("r%d–r%d", lo, hi)
	}
	names := make([]string, len(g.ranks))
	for i, r := range g.ranks {
		names[i] = fmt.Sprintf("r%d", r)
	}
	return strings.Join(names, ", ")
}

// drawMemory draws what each device holds (Step.HeldBytes) at the steps
// run so far, a line per group of devices that hold alike (in the first
// one's colour; the first group's solid, the others' dashed) across the
// columns, on a scale that the plan's largest peak fills, so that the
// lines do not jump as the steps run. Each group's peak so far is a dot
// on its line, and the line under the chart names each group (a piece
// of its line, its ranks), its peak and the step it is first reached at.
func (s *programScene) drawMemory(c *canvas, first, last int, x0, colW, y, h float64, now int) {
	top, bottom := y+20, y+h-28
	right := x0 + colW*float64(last-first)
	c.text(x0, y+12, "what each device holds", progSmallPx, Muted, FontRegular, AnchorStart)
	c.add(Line{X1: x0, Y1: bottom, X2: right, Y2: bottom, Color: Faint, Width: 1})
	peak, _ := s.plan.Peak()
	most := slices.Max(peak)
	yOf := func(b int64) float64 {
		if most == 0 {
			return bottom
		}
		return bottom - (bottom-top)*float64(b)/float64(most)
	}
	end := min(last, now+1) // the steps drawn: those run so far
	lx := x0
	for k, g := range s.groups {
		col, pos := DeviceColor(g.pos[0]), g.pos[0]
		dash := k > 0            // the first group's line solid, the others dashed: not colour alone
		at, held := 0, int64(-1) // the group's peak so far, first reached
		for k := 0; k <= now; k++ {
			if b := s.plan.Steps[k].HeldBytes[pos]; b > held {
				at, held = k, b
			}
		}
		cx := func(i int) float64 { return x0 + colW*float64(i-first) + colW/2 }
		for i := first; i+1 < end; i++ {
			c.add(Line{X1: cx(i), Y1: yOf(s.plan.Steps[i].HeldBytes[pos]), X2: cx(i + 1), Y2: yOf(s.plan.Steps[i+1].HeldBytes[pos]), Color: col, Width: 2.5, Dash: dash})
		}
		if at >= first && at < end {
			px, py := cx(at), yOf(held)
			c.add(Rect{X: px - 4, Y: py - 4, W: 8, H: 8, Fill: col, Stroke: Ink, StrokeWidth: 1.5})
		}
		label := fmt.Sprintf("%s peak %s at step %d", g.name(), tensor.FormatBytes(held), at+1)
		if now < len(s.plan.Steps)-1 {
			label = fmt.Sprintf("%s peak so far %s at step %d", g.name(), tensor.FormatBytes(held), at+1)
		}
		if lx+22+TextWidth(label, FontRegular, progSmallPx) > right && lx > x0 {
			break // no room for another group's words
		}
		c.add(Line{X1: lx, Y1: y + h - 12, X2: lx + 18, Y2: y + h - 12, Color: col, Width: 3, Dash: dash})
		t, size := fitLabel(label, FontRegular, progSmallPx, right-lx-22)
		c.text(lx+22, y+h-8, t, size, Ink, FontRegular, AnchorStart)
		lx += 22 + TextWidth(t, FontRegular, size) + 14
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

// stepLines says what step i does, in the panel's words: on a cluster
// its time (timeLines), with the memory lines what the devices hold.
func (s *programScene) stepLines(i int) []string {
	st := s.plan.Steps[i]
	var out []string
	switch st.Kind {
	case program.StepInput:
		out = append(out, fmt.Sprintf("%s %v laid out as %s (values: %s)", st.Name, st.Shape, st.Sbp, st.Values))
	case program.StepBoxing:
		out = append(out, fmt.Sprintf("box %s %v from %s to %s: %s", st.Tensor, st.Shape, st.From, st.To, strings.Join(st.Collectives, " + ")),
			fmt.Sprintf("sends %s in all", tensor.FormatBytes(st.SendBytes)))
	case program.StepOp:
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
