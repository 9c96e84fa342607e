package viz

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// A column's band is the pass its step is in; an op where the greedy and
// the exact plans pick differently has its SBP in differsInk.
var (
	backwardBand = RGB(235, 243, 250) // the backward's columns
	forwardBand  = CellFill
	differsInk   = Path
)

// drawColumn draws step i's column at x: the band, the step's words, the
// devices' shards, a boxing's arrow and the running total.
func (s *programScene) drawColumn(c *canvas, i int, x, top, w, bottom, foot float64, rows []int, rowH float64, now int, f *Focus) {
	st := s.plan.Steps[i]
	band := forwardBand
	if st.Pass == graph.Backward {
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
	case planner.StepInput:
		what[0] = "input " + st.Values // input arange, ones, zeros
		if st.Values == program.ValuesUniform || program.FromFile(st.Values) {
			what[0] = "from " + st.Values
			if TextWidth(what[0], FontMono, progSmallPx) > inner { // the word over its source
				what = []string{"from", st.Values}
			}
		}
	case planner.StepOp:
		what = []string{st.Op + " " + strings.Join(st.Inputs, " ")}
		if TextWidth(what[0], FontMono, progSmallPx) > inner { // the op over its operands
			what = []string{st.Op, strings.Join(st.Inputs, " ")}
		}
	case planner.StepBoxing:
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
	if st.Kind == planner.StepBoxing { // what it was is the tensor's column before; the panel says both
		sbpText = "→ " + st.To.String()
	}
	sbpCol := Broadcast
	if st.Kind == planner.StepOp && s.differs[st.Name] {
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
	if st.Kind == planner.StepBoxing {
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
