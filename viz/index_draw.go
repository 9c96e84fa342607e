package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
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
	panelW     = 400.0 // the right-hand panel
	titleSize  = 24.0
	noteSize   = 15.0
	formulaPx  = 14.0
	maxCell    = 46.0
	stripCellH = 30.0
)

func (s *indexScene) draw(step int, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	y := c.header(s.title, s.notes, W-panelW-2*margin)
	top := y + 52
	stripsH := float64(len(s.ops)) * (stripCellH + 40)
	mainW := W - panelW - 3*margin
	mainH := H - top - stripsH - margin
	sel := s.sweep[min(step, len(s.sweep)-1)]
	if len(s.sweep) == 0 {
		sel = nil
	}
	reads := []Read(nil)
	if sel != nil {
		reads = s.readsOf(sel)
	}

	// The grids.
	out, in := s.layoutGrids(margin, top, mainW, mainH)
	readers := s.readersOfOffset(out)
	s.drawGrid(c, out, "out", func(idx []int) (Color, string) {
		fill := CellFill
		switch {
		case sel != nil && slices.Equal(idx, sel):
			fill = Highlight
		case readers[fmt.Sprint(idx)]:
			fill = Reader
		}
		return fill, s.cellLabel(idx, out.Cell)
	})
	c.text(margin, top-22, s.outCaption(), 14, Ink, FontRegular, AnchorStart)
	if in != nil {
		chosen := map[int]bool{}
		for _, r := range reads {
			chosen[r.Offset] = true
		}
		xl := s.ops[0].view
		s.drawGrid(c, *in, "x", func(idx []int) (Color, string) {
			off := xl.Offset(idx)
			if chosen[off] {
				return Reader, fmt.Sprint(off)
			}
			return CellFill, fmt.Sprint(off)
		})
	}

	// The storage strips, with the reads of the selected cell wired in.
	// The wires go under everything else, so cells they cross stay legible.
	var wires []Item
	defer func() { c.frame.Items = append(wires, c.frame.Items...) }()
	sy := H - margin - stripsH + 26
	for k, o := range s.ops {
		var mine []int
		for _, r := range reads {
			if r.Operand == o.name {
				mine = append(mine, r.Offset)
			}
		}
		if k == 0 && s.offset >= 0 {
			mine = append(mine, s.offset)
		}
		strip := s.drawStrip(c, o, margin, sy, W-panelW-3*margin, mine, reads)
		if sel != nil && in == nil {
			from, _ := out.Find(sel)
			fx, fy := from.X+from.W/2, from.Y+from.H
			for _, r := range reads {
				if r.Operand != o.name {
					continue
				}
				if cell, ok := strip[r.Offset]; ok {
					wires = append(wires, Line{X1: fx, Y1: fy, X2: cell.X + cell.W/2, Y2: cell.Y - 2, Color: Path, Width: 2, Arrow: true})
				}
			}
		}
		if k == 0 && s.offset >= 0 {
			if cell, ok := strip[s.offset]; ok {
				drawn := 0
				for _, gc := range out.Cells {
					if readers[fmt.Sprint(gc.Index)] && drawn < 64 {
						wires = append(wires, Line{X1: cell.X + cell.W/2, Y1: cell.Y, X2: gc.X + gc.W/2, Y2: gc.Y + gc.H, Color: Broadcast, Width: 1.2, Dash: true})
						drawn++
					}
				}
			}
		}
		sy += stripCellH + 40
	}
	s.drawPanel(c, W-panelW-margin, margin+titleSize+24, sel, reads, step)
}

// layoutGrids fits the output grid (and, for reduce, the input grid to
// its left) into the main area.
func (s *indexScene) layoutGrids(x, y, w, h float64) (Grid, *Grid) {
	if s.reduced == nil {
		return FitGrid(s.out, w, h, maxCell, DefaultBudget).Moved(x, y), nil
	}
	inShape := s.ops[0].view.Shape()
	ui, uo := LayoutGrid(inShape, maxCell, DefaultBudget), LayoutGrid(s.out, maxCell, DefaultBudget)
	share := ui.W / (ui.W + uo.W) // the input's share of the width
	in := FitGrid(inShape, (w-60)*share, h, maxCell, DefaultBudget)
	out := FitGrid(s.out, (w-60)*(1-share), h, in.Cell, DefaultBudget)
	in = FitGrid(inShape, (w-60)*share, h, out.Cell, DefaultBudget)
	in = in.Moved(x, y)
	return out.Moved(x+in.W+60, y), &in
}

func (s *indexScene) outCaption() string {
	if s.reduced != nil {
		return fmt.Sprintf("x %v (left) → out %v (right): each out cell is the %s of %d inputs", s.ops[0].view.Shape(), s.out, s.reduceOp, s.combined())
	}
	return fmt.Sprintf("out %v: each cell shows the storage offset it reads", s.out)
}

// cellLabel is what an output cell shows: the storage offset it reads
// (binary: both; reduce: how many inputs it combines).
func (s *indexScene) cellLabel(idx []int, cell float64) string {
	if s.reduced != nil {
		if s.combined() > 4096 {
			return "Σ"
		}
		return fmt.Sprint(s.reduceValue(idx))
	}
	r := s.readsOf(idx)
	if len(r) == 2 {
		return fmt.Sprintf("%d,%d", r[0].Offset, r[1].Offset)
	}
	return fmt.Sprint(r[0].Offset)
}

// reduceValue is what the reduction gives at idx over an arange input
// (whose values are their offsets): the cell's label.
func (s *indexScene) reduceValue(idx []int) int {
	reads := s.readsOf(idx)
	if len(reads) == 0 {
		return 0
	}
	v := reads[0].Offset
	for _, r := range reads[1:] {
		switch s.reduceOp {
		case tensor.Sum:
			v += r.Offset
		case tensor.MaxAll:
			v = max(v, r.Offset)
		default:
			v = min(v, r.Offset)
		}
	}
	return v
}

// readersOfOffset marks the drawn output cells that read s.offset of the
// first operand.
func (s *indexScene) readersOfOffset(g Grid) map[string]bool {
	m := map[string]bool{}
	if s.offset < 0 {
		return m
	}
	for _, gc := range g.Cells {
		for _, r := range s.readsOf(gc.Index) {
			if r.Operand == s.ops[0].name && r.Offset == s.offset {
				m[fmt.Sprint(gc.Index)] = true
			}
		}
	}
	return m
}

// drawGrid draws g's cells with the fill and label style gives them, and
// records them as hot cells of operand.
func (s *indexScene) drawGrid(c *canvas, g Grid, operand string, style func([]int) (Color, string)) {
	c.add(g.Marks...)
	size := max(8, min(15, g.Cell*0.36))
	for _, gc := range g.Cells {
		fill, label := style(gc.Index)
		c.add(Rect{X: gc.X + 1, Y: gc.Y + 1, W: gc.W - 2, H: gc.H - 2, Fill: fill, Stroke: Faint, StrokeWidth: 1})
		if g.Cell >= 14 {
			fs := fitText(label, FontMono, size, gc.W-4)
			c.add(Text{X: gc.X + gc.W/2, Y: gc.Y + gc.H/2 + fs*0.36, S: label, Size: fs, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		}
		c.hot(Hot{X: gc.X, Y: gc.Y, W: gc.W, H: gc.H, Kind: "cell", Operand: operand, Index: gc.Index})
	}
}

// drawStrip draws operand o's storage as a row of cells (elided, always
// keeping the offsets in keep) and returns the drawn cells by offset.
func (s *indexScene) drawStrip(c *canvas, o operand, x, y, w float64, keep []int, reads []Read) map[int]GridCell {
	n, _ := o.storage.NumElements()
	budget := max(5, int(w/36))
	offs := visibleKeeping(n, budget, keep)
	cell := min(40, w/float64(max(len(offs), 1)))
	fan := fanIn(o.view)
	caption := fmt.Sprintf("%s storage: %d elements, contiguous %v", o.name, n, o.storage)
	if fan > 1 {
		caption += fmt.Sprintf(" — each read by %d output cells (stride 0)", fan)
	}
	c.text(x, y-8, caption, 13, Muted, FontRegular, AnchorStart)
	cells := map[int]GridCell{}
	cx := x
	for _, off := range offs {
		if off == Gap {
			c.text(cx+cell*0.35, y+stripCellH/2+5, "…", 15, Muted, FontRegular, AnchorMiddle)
			cx += cell * 0.7
			continue
		}
		fill := CellFill
		if slices.Contains(keep, off) {
			fill = Highlight
		}
		c.add(Rect{X: cx + 1, Y: y, W: cell - 2, H: stripCellH, Fill: fill, Stroke: Ink, StrokeWidth: 1})
		label := fmt.Sprint(off)
		fs := fitText(label, FontMono, 13, cell-4)
		c.add(Text{X: cx + cell/2, Y: y + stripCellH/2 + fs*0.36, S: label, Size: fs, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		cells[off] = GridCell{Index: []int{off}, X: cx, Y: y, W: cell, H: stripCellH}
		c.hot(Hot{X: cx, Y: y, W: cell, H: stripCellH, Kind: "storage", Operand: o.name, Offset: off})
		cx += cell
	}
	if n == 0 {
		c.text(x, y+stripCellH/2+5, "(empty)", 13, Muted, FontRegular, AnchorStart)
	}
	return cells
}

// drawPanel writes the selected cell's formula per operand (from tensor's
// trace), the repeat stages, and where the sweep is.
func (s *indexScene) drawPanel(c *canvas, x, y float64, sel []int, reads []Read, step int) {
	w := panelW - margin
	line := func(str string, size float64, col Color, f Font) {
		y += size + 8
		c.text(x, y, str, fitText(str, f, size, w), col, f, AnchorStart)
	}
	if len(s.stages) > 0 {
		line("repeat, step by step", 16, Ink, FontBold)
		for _, st := range s.stages {
			line(st, 13, Ink, FontRegular)
		}
		y += 10
	}
	if sel == nil {
		line("the output is empty: nothing to read", 15, Muted, FontRegular)
		return
	}
	line(fmt.Sprintf("step %d of %d: out %v", step+1, len(s.sweep), sel), 16, Ink, FontBold)
	if s.reduced != nil {
		line(fmt.Sprintf("combines %d elements of x:", len(reads)), 14, Ink, FontRegular)
		offs := make([]string, 0, 12)
		for i, r := range reads {
			if i == 11 && len(reads) > 12 {
				offs = append(offs, "…")
				break
			}
			offs = append(offs, fmt.Sprint(r.Offset))
		}
		line("offsets "+strings.Join(offs, ", "), formulaPx, Ink, FontMono)
		return
	}
	for _, o := range s.ops {
		view := o.view
		idx := sel
		if s.unravel {
			idx = unravel(view.Shape(), linear(s.out, sel))
			line(fmt.Sprintf("= expanded view %v", idx), formulaPx, Ink, FontMono)
		}
		tr, err := view.Trace(idx)
		if err != nil {
			continue
		}
		line(o.name+" offset = "+fmt.Sprint(tr.Base), formulaPx, Ink, FontMono)
		for _, t := range tr.Terms {
			term := fmt.Sprintf("  + %d·%d", t.Index, t.Stride)
			col := Ink
			if t.Broadcast {
				term += "  (broadcast: stride 0)"
				col = Broadcast
			}
			line(term, formulaPx, col, FontMono)
		}
		line(fmt.Sprintf("  = %d", tr.Offset), formulaPx, Path, FontMono)
	}
	if s.offset >= 0 {
		y += 8
		line(fmt.Sprintf("readers of %s[%d] are tinted", s.ops[0].name, s.offset), 14, Broadcast, FontRegular)
	}
}

// fanIn is how many output cells read each storage element a view
// reaches: the product of its stride-0 dims (the other dims map one to
// one for views of a contiguous buffer).
func fanIn(v tensor.Layout) int {
	n := 1
	for d := 0; d < v.Rank(); d++ {
		if v.Stride(d) == 0 {
			n *= v.Dim(d)
		}
	}
	return n
}
