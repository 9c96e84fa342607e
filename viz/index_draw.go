package viz

import (
	"fmt"
	"slices"
)

// The index scenes' picture, top to bottom: the title and what the op
// does; the output grid (reduce: the input grid beside it), every cell
// labelled with the storage offset it reads; one storage strip per operand,
// its cells labelled with their offsets. At each step the kernel's next
// output cell is selected and wired to what it reads, and the right-hand
// panel writes out the offset formula from tensor's trace. With --offset,
// a storage cell of the first operand lights every output cell reading it.

const (
	margin     = 24.0
	panelW     = 400.0 // the right-hand panel, at most
	titleSize  = 24.0
	noteSize   = 15.0
	formulaPx  = 14.0
	maxCell    = 60.0
	stripCellH = 30.0
	stripH     = stripCellH + 40 // a strip with its caption and the room under it
	// narrowW is the width under which a scene's panels stack (the grids,
	// the strips, then the panel) instead of standing side by side.
	narrowW = 760.0
)

// indexArea is where an index scene's parts go in a frame: the grids and
// under them their storage strips in the main column (x = margin, width
// mainW, grids from top down to bottom), the panel to its right on a wide
// frame and under the strips on a narrow one.
type indexArea struct {
	narrow         bool
	mainW, top     float64
	bottom         float64 // the lowest the grids may reach
	panelX, panelY float64
	panelW         float64
}

// area draws the header and places the parts for a frame of W×H whose
// panel writes lines and whose strips are strips high.
func (s *indexScene) area(c *canvas, lines []panelLine, strips float64) indexArea {
	W, H := float64(c.frame.W), float64(c.frame.H)
	a := indexArea{narrow: W < narrowW}
	if a.narrow {
		a.mainW, a.panelX, a.panelW = W-2*margin, margin, W-2*margin
	} else {
		a.panelW = min(panelW, max(280, 0.3*W))
		a.mainW, a.panelX = W-a.panelW-3*margin, W-a.panelW-margin
	}
	y := c.header(s.title, s.notes, a.mainW)
	a.panelY = c.titleBottom + 24
	a.top = y + 52
	a.bottom = H - margin - strips
	if a.narrow {
		a.bottom -= panelHeight(lines) + 16
	}
	// The grids get at least 40% of the room under the header: on a short
	// frame the panel runs off the bottom (pan or zoom out to it).
	a.bottom = max(a.bottom, a.top+max(3*maxCell, 0.4*(H-a.top)))
	return a
}

// panelAt is where the panel's lines start once the strips end at
// stripsEnd: right of the grids, or under the strips.
func (a indexArea) panelAt(stripsEnd float64) (float64, float64) {
	if a.narrow {
		return a.panelX, stripsEnd
	}
	return a.panelX, a.panelY
}

// draw draws the frame at step (repeat's lead frames are drawStage's):
// the header, the grids (layoutGrids, drawOperandGrids, drawGrid), the
// storage strips (drawStrip) with the selected cell wired to what it
// reads and the focused storage cell to its readers, and the panel
// (panelLines).
func (s *indexScene) draw(step int, f *Focus, c *canvas) {
	if step < s.lead {
		s.drawStage(step, f, c)
		return
	}
	lt := s.light(step, f)
	sel := lt.sel
	reads := s.readsOf(sel)
	var readers [][]int
	lines := s.panelLines(step, lt, reads, 0, c.hide)
	a := s.area(c, lines, float64(len(s.ops))*stripH)
	if c.hide { // a question is open: the selected cell is lit, not what it reads
		reads = nil
	}

	// The grids.
	out, in := s.layoutGrids(a)
	if len(s.ops) == 2 {
		s.drawOperandGrids(c, out, lt, a)
	}
	if lt.storage != nil && !c.hide {
		readers = s.drawnReaders(out, *lt.storage)
	}
	drawGrid(c, out, cellHot("out"), func(idx []int) cellLook {
		fill := CellFill
		switch {
		case sel != nil && slices.Equal(idx, sel):
			fill = Highlight
		case slices.ContainsFunc(readers, func(r []int) bool { return slices.Equal(r, idx) }):
			fill = Reader
		}
		return cellLook{fill: fill, label: c.answer(s.cellLabel(idx, out.Cell))}
	})
	capX, capY, capW := margin, a.top-22, a.mainW // a binary op's caption heads its output grid, right of a and b (under them)
	if len(s.ops) == 2 {
		capX, capY, capW = out.X, out.Y-22, margin+a.mainW-out.X
	}
	caption := s.outCaption(a.narrow)
	caption, cs := fitLabel(caption, FontRegular, 14, capW)
	c.text(capX, capY, caption, cs, Ink, FontRegular, AnchorStart)
	gridsEnd := out.Y + out.H
	if in != nil {
		xl := s.ops[0].view
		drawGrid(c, *in, cellHot("x"), func(idx []int) cellLook {
			off := xl.Offset(idx)
			switch {
			case slices.Equal(idx, lt.inCell):
				return cellLook{fill: Highlight, label: fmt.Sprint(off)}
			case slices.Contains(reads, Read{"x", off}):
				return cellLook{fill: Reader, label: fmt.Sprint(off)}
			}
			return cellLook{fill: CellFill, label: fmt.Sprint(off)}
		})
		gridsEnd = max(gridsEnd, in.Y+in.H)
	}

	// The storage strips, right under the grids, with the reads of the
	// selected cell wired in. The wires go under everything else, so
	// cells they cross stay legible.
	var wires []Item
	defer func() { c.frame.Items = append(wires, c.frame.Items...) }()
	sy := gridsEnd + 40
	litOp, litOff := "", -1
	if lt.storage != nil {
		litOp, litOff = lt.storage.Operand, lt.storage.Offset
	}
	// The strips keep the step's reads and --offset's cell in view, never
	// the focus's: where a cell lies does not depend on what is lit.
	plain := s.light(step, nil)
	for _, o := range s.ops {
		mine := offsetsOf(o.name, reads, lt.storage)
		keep := offsetsOf(o.name, s.readsOf(plain.sel), plain.storage)
		focused := o.name == litOp
		strip := s.drawStrip(c, o, margin, sy, a.mainW, keep, mine)
		if sel != nil && in == nil {
			if from, ok := out.Find(sel); ok {
				fx, fy := from.X+from.W/2, from.Y+from.H
				for _, r := range reads {
					if cell, ok := strip[r.Offset]; ok && r.Operand == o.name {
						wires = append(wires, Line{X1: fx, Y1: fy, X2: cell.X + cell.W/2, Y2: cell.Y - 2, Color: Path, Width: 2, Arrow: true})
					}
				}
			}
		}
		if cell, ok := strip[litOff]; focused && ok {
			for _, idx := range readers[:min(len(readers), 64)] {
				gc, _ := out.Find(idx)
				wires = append(wires, Line{X1: cell.X + cell.W/2, Y1: cell.Y, X2: gc.X + gc.W/2, Y2: gc.Y + gc.H, Color: Broadcast, Width: 1.2, Dash: true})
			}
		}
		sy += stripH
	}
	if !c.hide && lt.storage != nil { // the panel counts the readers drawn
		lines = s.panelLines(step, lt, reads, len(readers), false)
	}
	px, py := a.panelAt(sy - 26)
	c.panel(px, py, a.panelW, lines)
}

// drawStage draws one of repeat's lead frames: the stage's view as a
// grid, each cell labelled with the storage offset it reads and hot as
// that storage cell (the view's cells are names for storage cells), the
// stride-0 copies as ghosts, and the storage strip under it.
func (s *indexScene) drawStage(step int, f *Focus, c *canvas) {
	lines := s.panelLines(step, indexLight{}, nil, 0, c.hide)
	a := s.area(c, lines, stripH)
	st, x := s.stageViews[step], s.ops[0]
	g := FitGrid(st.view.Shape(), a.mainW, a.bottom-a.top, maxCell, DefaultBudget).Moved(margin, a.top)
	caption, cs := fitLabel(st.caption, FontRegular, 14, a.mainW)
	c.text(margin, a.top-22, caption, cs, Ink, FontRegular, AnchorStart)
	lit := offsetsOf(x.name, nil, s.light(step, f).storage)
	drawGrid(c, g, func(idx []int) Hot {
		return Hot{Focus: Focus{Kind: FocusStorage, Operand: x.name, Offset: st.view.Offset(idx)}}
	}, func(idx []int) cellLook {
		off := st.view.Offset(idx)
		l := cellLook{fill: CellFill, label: c.answer(fmt.Sprint(off)), ghost: ghost(st.view, idx)}
		switch {
		case slices.Contains(lit, off) && !c.hide:
			l.fill = Highlight
		case l.ghost:
			l.fill = Tint(Broadcast, 0.85)
		}
		return l
	})
	sy := g.Y + g.H + 40
	if c.hide {
		lit = nil
	}
	s.drawStrip(c, x, margin, sy, a.mainW, offsetsOf(x.name, nil, s.light(step, nil).storage), lit)
	px, py := a.panelAt(sy + stripH - 26)
	c.panel(px, py, a.panelW, lines)
}

// offsetsOf lists the storage offsets of operand name among reads and lit.
func offsetsOf(name string, reads []Read, lit *Read) []int {
	var out []int
	for _, r := range append(slices.Clone(reads), derefReads(lit)...) {
		if r.Operand == name {
			out = append(out, r.Offset)
		}
	}
	return out
}

func derefReads(r *Read) []Read {
	if r == nil {
		return nil
	}
	return []Read{*r}
}
