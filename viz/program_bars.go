package viz

import (
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

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
		if st.Kind != planner.StepBoxing || st.SendBytes == 0 || i > now {
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
func timeMark(k planner.StepKind, x, y, w, h float64) Rect {
	if k == planner.StepBoxing {
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
		k    planner.StepKind
		name string
	}{{planner.StepOp, "compute"}, {planner.StepBoxing, "communication"}} {
		c.add(timeMark(m.k, x, y-10, 16, 11))
		c.text(x+22, y, m.name, progSmallPx, Ink, FontRegular, AnchorStart)
		x += 22 + TextWidth(m.name, FontRegular, progSmallPx) + 14
	}
}
