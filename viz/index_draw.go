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

func (s *indexScene) draw(step int, f *Focus, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	y := c.header(s.title, s.notes, W-panelW-2*margin)
	top := y + 52
	stripsH := float64(len(s.ops)) * (stripCellH + 40)
	mainW := W - panelW - 3*margin
	mainH := H - top - stripsH - margin
	lt := s.light(step, f)
	sel := lt.sel
	reads := s.readsOf(sel)

	// The grids.
	out, in := s.layoutGrids(margin, top, mainW, mainH)
	var readers [][]int
	if lt.storage != nil {
		readers = s.drawnReaders(out, *lt.storage)
	}
	s.drawGrid(c, out, "out", func(idx []int) (Color, string) {
		fill := CellFill
		switch {
		case sel != nil && slices.Equal(idx, sel):
			fill = Highlight
		case slices.ContainsFunc(readers, func(r []int) bool { return slices.Equal(r, idx) }):
			fill = Reader
		}
		return fill, s.cellLabel(idx, out.Cell)
	})
	c.text(margin, top-22, s.outCaption(), 14, Ink, FontRegular, AnchorStart)
	if in != nil {
		xl := s.ops[0].view
		s.drawGrid(c, *in, "x", func(idx []int) (Color, string) {
			off := xl.Offset(idx)
			switch {
			case slices.Equal(idx, lt.inCell):
				return Highlight, fmt.Sprint(off)
			case slices.Contains(reads, Read{"x", off}):
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
		strip := s.drawStrip(c, o, margin, sy, W-panelW-3*margin, keep, mine)
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
		sy += stripCellH + 40
	}
	s.drawPanel(c, W-panelW-margin, margin+titleSize+24, s.panelLines(step, lt, reads, len(readers)))
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
// keeping the offsets in keep), those in lit highlighted, and returns the
// drawn cells by offset.
func (s *indexScene) drawStrip(c *canvas, o operand, x, y, w float64, keep, lit []int) map[int]GridCell {
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
		if slices.Contains(lit, off) {
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

// panelLine is one line of the right-hand panel, and of the results
// panel (Report), which writes the same words.
type panelLine struct {
	s    string
	size float64
	col  Color
	font Font
}

func texts(lines []panelLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.s
	}
	return out
}

// drawPanel writes lines down from (x, y), each shrunk to the panel.
func (s *indexScene) drawPanel(c *canvas, x, y float64, lines []panelLine) {
	for _, l := range lines {
		y += l.size + 8
		if l.s == "" {
			continue
		}
		c.text(x, y, l.s, fitText(l.s, l.font, l.size, panelW-margin), l.col, l.font, AnchorStart)
	}
}

// panelLines are the panel's words at step: the repeat stages, the
// selected cell's formula per operand (from tensor's trace) or what a
// reduce combines, and the focused storage cell's readers.
func (s *indexScene) panelLines(step int, lt indexLight, reads []Read, drawn int) []panelLine {
	var out []panelLine
	if len(s.stages) > 0 {
		out = append(out, panelLine{"repeat, step by step", 16, Ink, FontBold})
		for _, st := range s.stages {
			out = append(out, panelLine{st, 13, Ink, FontRegular})
		}
		out = append(out, panelLine{"", 2, Ink, FontRegular})
	}
	switch {
	case lt.sel == nil:
		out = append(out, panelLine{"the output is empty: nothing to read", 15, Muted, FontRegular})
	case lt.inCell != nil:
		out = append(out, panelLine{fmt.Sprintf("x%v feeds out %v", lt.inCell, lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads)...)
	case s.sweep != nil && slices.Equal(lt.sel, s.sweep[min(step, len(s.sweep)-1)]):
		out = append(out, panelLine{fmt.Sprintf("step %d of %d: out %v", step+1, len(s.sweep), lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads)...)
	default:
		out = append(out, panelLine{fmt.Sprintf("focus: out %v", lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads)...)
	}
	if lt.storage != nil {
		out = append(out, panelLine{"", 0, Ink, FontRegular})
		out = append(out, s.storageLines(*lt.storage)...)
		out = append(out, panelLine{fmt.Sprintf("%d of them drawn here, tinted", drawn), 14, Broadcast, FontRegular})
	}
	return out
}

// cellLines say what output cell sel reads: the offset formula per
// operand, or the elements a reduce combines.
func (s *indexScene) cellLines(sel []int, reads []Read) []panelLine {
	var out []panelLine
	if s.reduced != nil {
		out = append(out, panelLine{fmt.Sprintf("combines %d elements of x:", len(reads)), 14, Ink, FontRegular})
		offs := make([]string, 0, 12)
		for i, r := range reads {
			if i == 11 && len(reads) > 12 {
				offs = append(offs, "…")
				break
			}
			offs = append(offs, fmt.Sprint(r.Offset))
		}
		return append(out, panelLine{"offsets " + strings.Join(offs, ", "), formulaPx, Ink, FontMono})
	}
	for _, o := range s.ops {
		view := o.view
		idx := sel
		if s.unravel {
			idx = unravel(view.Shape(), linear(s.out, sel))
			out = append(out, panelLine{fmt.Sprintf("= expanded view %v", idx), formulaPx, Ink, FontMono})
		}
		tr, err := view.Trace(idx)
		if err != nil {
			continue
		}
		out = append(out, panelLine{o.name + " offset = " + fmt.Sprint(tr.Base), formulaPx, Ink, FontMono})
		for _, t := range tr.Terms {
			term, col := fmt.Sprintf("  + %d·%d", t.Index, t.Stride), Ink
			if t.Broadcast {
				term += "  (broadcast: stride 0)"
				col = Broadcast
			}
			out = append(out, panelLine{term, formulaPx, col, FontMono})
		}
		out = append(out, panelLine{fmt.Sprintf("  = %d", tr.Offset), formulaPx, Path, FontMono})
	}
	return out
}

// storageLines say how many output cells read storage cell r in all
// (exact, from the layout).
func (s *indexScene) storageLines(r Read) []panelLine {
	n := s.readers(r)
	return []panelLine{{fmt.Sprintf("%s[%d] is read by %d output cell%s in all", r.Operand, r.Offset, n, plural(n)), 14, Broadcast, FontBold}}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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
