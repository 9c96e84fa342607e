package viz

import (
	"fmt"
	"math"
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

// draw draws the frame at step: the header, the columns of the steps
// that fit around it (drawColumn), the bars under them (drawBars, or on
// a cluster drawTimes), the memory lines (drawMemory), each band's pass,
// and the panel (drawPanel) right of the columns or, on a narrow frame,
// under them.
func (s *programScene) draw(step int, f *Focus, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	narrow := W < narrowW
	ranks := s.plan.Program.Placement.Ranks()
	rows := Visible(len(ranks), progMaxRows)
	notes, sz := s.notes, s.sizes(narrow)
	mainW, pw := W-progPanelW-3*margin, progPanelW
	if narrow { // the columns across the frame, the program under them
		mainW, pw = W-2*margin, W-2*margin
	}
	extra := 0.0 // the overview's height, when the steps outnumber the columns
	if s.overviewShown(mainW) {
		extra = progOverviewH
	}
	if s.timed || s.memory {
		// The charts under the columns before the notes: on a phone, or
		// where the frame is too short for them all at their full
		// sizes, they take less room, and then, if they still do not
		// fit, the notes go (the report says them).
		fits := func(notes []string, sz progSizes) bool {
			top := math.Round(newCanvas(Size{W: c.frame.W, H: c.frame.H}).header(s.heading, notes, W-2*margin) + 34 + extra)
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
	top := math.Round(y + 34 + extra)
	first, last := s.window(step, mainW)
	n := last - first
	colW := math.Floor(min(progMaxColW, mainW/float64(n))) // whole pixels: every renderer draws the same edges
	x0 := margin
	if extra > 0 {
		s.drawOverview(c, x0, top-progOverviewH-6, colW*float64(n), first, last, step)
	} else {
		if first > 0 {
			c.text(x0, top-10, fmt.Sprintf("« %d earlier step(s)", first), progSmallPx, Muted, FontRegular, AnchorStart)
		}
		if last < len(s.plan.Steps) {
			c.text(x0+colW*float64(n), top-10, fmt.Sprintf("%d later step(s) »", len(s.plan.Steps)-last), progSmallPx, Muted, FontRegular, AnchorEnd)
		}
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
	// The pass each band is, once where it starts, and each run of one
	// module path's steps.
	s.drawModuleRuns(c, first, last, x0, colW, bottom+foot+barsH+memH+36)
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
