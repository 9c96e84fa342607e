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

// layoutGrids fits the output grid (and, for reduce, the input grid
// beside it, or above it on a narrow frame) into the main column.
//
// A binary op's output takes the right third, a and b the first two
// (drawOperandGrids); on a narrow frame the three stack, output last.
func (s *indexScene) layoutGrids(a indexArea) (Grid, *Grid) {
	x, y, w, h := margin, a.top, a.mainW, a.bottom-a.top
	if len(s.ops) == 2 {
		if a.narrow { // a and b side by side, out under them
			g := FitGrid(s.out, (w-signW)/2, (h-binaryGap)/2, maxCell, DefaultBudget)
			return g.Moved(x, y+g.H+binaryGap), nil
		}
		g := FitGrid(s.out, (w-2*signW)/3, h, maxCell, DefaultBudget)
		return g.Moved(x+2*(g.W+signW), y), nil
	}
	if s.reduced == nil {
		return FitGrid(s.out, w, h, maxCell, DefaultBudget).Moved(x, y), nil
	}
	inShape := s.ops[0].view.Shape()
	if a.narrow {
		in := FitGrid(inShape, w, (h-reduceGap)/2, maxCell, DefaultBudget)
		out := FitGrid(s.out, w, (h-reduceGap)/2, in.Cell, DefaultBudget)
		in = FitGrid(inShape, w, (h-reduceGap)/2, out.Cell, DefaultBudget).Moved(x, y)
		return out.Moved(x, y+in.H+reduceGap), &in
	}
	ui, uo := LayoutGrid(inShape, maxCell, DefaultBudget), LayoutGrid(s.out, maxCell, DefaultBudget)
	share := ui.W / (ui.W + uo.W) // the input's share of the width
	in := FitGrid(inShape, (w-60)*share, h, maxCell, DefaultBudget)
	out := FitGrid(s.out, (w-60)*(1-share), h, in.Cell, DefaultBudget)
	in = FitGrid(inShape, (w-60)*share, h, out.Cell, DefaultBudget)
	in = in.Moved(x, y)
	return out.Moved(x+in.W+60, y), &in
}

// binaryGap is the room between a binary op's stacked grids (a narrow
// frame): the op or "=", and the next grid's caption; reduceGap is the
// room between reduce's stacked input and output.
const (
	binaryGap = 56.0
	reduceGap = 48.0
)

func (s *indexScene) outCaption(stacked bool) string {
	switch {
	case len(s.ops) == 2:
		return fmt.Sprintf("= out %v: each cell reads a and b", s.out)
	case s.stages != nil:
		bytes, _ := tensor.ResultBytes(tensor.Float32, s.out)
		return fmt.Sprintf("stage 3: the copy writes out %v, %s: each cell shows the storage offset it reads", s.out, tensor.FormatBytes(bytes))
	}
	if s.reduced != nil {
		where := "(left) → out %v (right)"
		if stacked {
			where = "(top) → out %v (under it)"
		}
		return fmt.Sprintf("x %v "+fmt.Sprintf(where, s.out)+": each out cell is the %s of %d inputs", s.ops[0].view.Shape(), s.reduceOp, s.combined())
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

// signW is the room between a binary op's grids, for the op and "=".
const signW = 44.0

// drawOperandGrids draws a binary op's operands as grids over the
// output's shape, right-aligned as broadcasting aligns them, left of the
// output grid out (same layout), or above it on a narrow frame: each cell
// labelled with the storage offset the operand's view reads there, the
// stretched (stride-0) copies dashed and tinted, the selected cell and
// the focused storage cell's aliases lit. Their cells are hot as cells of
// a and b.
func (s *indexScene) drawOperandGrids(c *canvas, out Grid, lt indexLight, a indexArea) {
	step := out.W + signW
	for k, o := range s.ops {
		g := out.Moved(-float64(2-k)*step, 0)
		if a.narrow { // a and b side by side over out
			g = out.Moved(float64(k)*step, -(out.H + binaryGap))
		}
		lit := offsetsOf(o.name, nil, lt.storage)
		if c.hide {
			lit = nil
		}
		drawGrid(c, g, cellHot(o.name), func(idx []int) cellLook {
			off := o.view.Offset(idx)
			l := cellLook{fill: CellFill, label: c.answer(fmt.Sprint(off)), ghost: ghost(o.view, idx)}
			switch {
			case slices.Equal(idx, lt.sel):
				l.fill = Highlight
			case slices.Contains(lit, off):
				l.fill = Reader
			case l.ghost:
				l.fill = Tint(Broadcast, 0.85)
			}
			return l
		})
		top := g.Y
		caption := fmt.Sprintf("%s %v → %v", o.name, o.storage, s.out)
		caption, cs := fitLabel(caption, FontRegular, 14, step-8)
		c.text(g.X, top-22, caption, cs, Ink, FontRegular, AnchorStart)
		sign := s.binOp.String()
		if k == 1 {
			if a.narrow { // out's caption, under b, starts with "="
				continue
			}
			sign = "="
		}
		c.text(g.X+g.W+signW/2, top+min(g.H, 3*g.Cell)/2+6, sign, fitText(sign, FontBold, 16, signW-4), Ink, FontBold, AnchorMiddle)
	}
}

// cellLook is how a grid cell is drawn: its fill and label, and whether
// it is a ghost (a stride-0 copy of another cell: dashed, tinted).
type cellLook struct {
	fill  Color
	label string
	ghost bool
}

// cellHot makes the hot region of a cell of operand's grid.
func cellHot(operand string) func([]int) Hot {
	return func(idx []int) Hot { return Hot{Focus: Focus{Kind: FocusCell, Operand: operand, Index: idx}} }
}

// drawGrid draws g's cells as look says and records each as the hot
// region hot gives (placed on the cell).
func drawGrid(c *canvas, g Grid, hot func([]int) Hot, look func([]int) cellLook) {
	c.add(g.Marks...)
	looks := make([]cellLook, len(g.Cells))
	labels := make([]string, len(g.Cells))
	for i, gc := range g.Cells {
		looks[i] = look(gc.Index)
		labels[i] = looks[i].label
	}
	fs, labelled := gridText(labels, min(18, g.Cell*0.36), g.Cell-3)
	labelled = labelled && g.Cell >= fs+2
	for i, gc := range g.Cells {
		l := looks[i]
		r := Rect{X: gc.X + 1, Y: gc.Y + 1, W: gc.W - 2, H: gc.H - 2, Fill: l.fill, Stroke: Faint, StrokeWidth: 1}
		if l.ghost {
			r.Stroke, r.StrokeWidth, r.Dash = Broadcast, 1.2, true
		}
		c.add(r)
		if labelled && l.label != "" {
			c.add(Text{X: gc.X + gc.W/2, Y: gc.Y + gc.H/2 + fs*0.36, S: l.label, Size: fs, Color: TextOn(l.fill), Font: FontMono, Anchor: AnchorMiddle})
		}
		h := hot(gc.Index)
		h.X, h.Y, h.W, h.H = gc.X, gc.Y, gc.W, gc.H
		c.hot(h)
	}
}

// ghost reports whether idx is a stride-0 copy in view v: a non-zero
// index along a broadcast dim, so it reads what index 0 there reads.
func ghost(v tensor.Layout, idx []int) bool {
	for d, i := range idx {
		if v.Stride(d) == 0 && i > 0 {
			return true
		}
	}
	return false
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

// A storage strip's cells are stripCellW wide where the strip has the
// room, and narrower where it has not, down to the narrowest cell whose
// label still fits at MinText with stripPad either side: the strip elides
// only the elements that cannot fit at that width, as the grid above it
// shrinks its cells rather than drop them.
const (
	stripCellW = 40.0
	stripPad   = 4.0
)

// stripBudget is how many cells (and gaps) a strip of n elements shows
// in width w: as many as fit at the narrowest cell that labels its
// widest offset, n-1, at MinText; never under 5 (two either side of a
// gap).
func stripBudget(n int, w float64) int {
	least := TextWidth(fmt.Sprint(max(n-1, 0)), FontMono, MinText) + 2*stripPad
	return max(5, int(w/least))
}

// drawStrip draws operand o's storage as a row of cells (elided, always
// keeping the offsets in keep), those in lit highlighted, and returns the
// drawn cells by offset. Offsets kept past the budget (a step that reads
// many) narrow the cells rather than elide the context around them: that
// context holds what a lesson's question asks for (the next cell's
// reads), and a label that no longer fits at MinText is left out.
func (s *indexScene) drawStrip(c *canvas, o operand, x, y, w float64, keep, lit []int) map[int]GridCell {
	n, _ := o.storage.NumElements()
	budget := stripBudget(n, w)
	offs := visibleKeeping(n, budget, keep)
	cell := min(stripCellW, w/float64(max(len(offs), 1)))
	fan := fanIn(o.view)
	caption := fmt.Sprintf("%s storage: %d elements, contiguous %v", o.name, n, o.storage)
	if fan > 1 && !c.hide { // how many read a cell: a readers question's hint
		caption += fmt.Sprintf(" — each read by %d output cells (stride 0)", fan)
	}
	caption, cs := fitLabel(caption, FontRegular, 13, w)
	c.text(x, y-8, caption, cs, Muted, FontRegular, AnchorStart)
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
		if fs, ok := cellText(label, FontMono, 13, cell-3); ok {
			c.add(Text{X: cx + cell/2, Y: y + stripCellH/2 + fs*0.36, S: label, Size: fs, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		}
		cells[off] = GridCell{Index: []int{off}, X: cx, Y: y, W: cell, H: stripCellH}
		c.hot(Hot{X: cx, Y: y, W: cell, H: stripCellH, Focus: Focus{Kind: FocusStorage, Operand: o.name, Offset: off}})
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

// panelHeight is how far drawPanel writes lines down.
func panelHeight(lines []panelLine) float64 {
	h := 0.0
	for _, l := range lines {
		h += l.size + 8
	}
	return h
}

// panelLines are the panel's words at step: the repeat stages, the
// selected cell's formula per operand (from tensor's trace) or what a
// reduce combines, and the focused storage cell's readers.
//
// hide (a question is open) leaves out what would answer it: the
// formula's terms and sum, what a reduce combines, the readers' count.
func (s *indexScene) panelLines(step int, lt indexLight, reads []Read, drawn int, hide bool) []panelLine {
	var out []panelLine
	if len(s.whyCopy) > 0 {
		out = append(out, panelLine{"reshape must copy", 16, Path, FontBold})
		for _, l := range s.whyCopy {
			out = append(out, panelLine{l, 13, Ink, FontMono})
		}
		out = append(out, panelLine{"", 2, Ink, FontRegular})
	}
	if len(s.stages) > 0 {
		out = append(out, panelLine{"repeat, step by step", 16, Ink, FontBold})
		for i, st := range s.stages {
			l := panelLine{st, 13, Ink, FontRegular}
			if i == min(step, len(s.stages)-1) { // the stage this frame shows
				l.col, l.font = Path, FontBold
			}
			out = append(out, l)
		}
		out = append(out, panelLine{"", 2, Ink, FontRegular})
	}
	switch {
	case step < s.lead:
		out = append(out, panelLine{fmt.Sprintf("frame %d of %d: the copy sweeps the output from frame %d", step+1, s.lead+len(s.sweep), s.lead+1), 14, Muted, FontRegular})
	case lt.sel == nil:
		out = append(out, panelLine{"the output is empty: nothing to read", 15, Muted, FontRegular})
	case lt.inCell != nil:
		out = append(out, panelLine{fmt.Sprintf("x%v feeds out %v", lt.inCell, lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	case slices.Equal(lt.sel, s.sweepAt(step)):
		out = append(out, panelLine{fmt.Sprintf("step %d of %d: out %v", step-s.lead+1, len(s.sweep), lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	default:
		out = append(out, panelLine{fmt.Sprintf("focus: out %v", lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	}
	if lt.storage != nil && hide {
		out = append(out, panelLine{"", 0, Ink, FontRegular})
		out = append(out, panelLine{fmt.Sprintf("%s[%d] is read by ? output cells", lt.storage.Operand, lt.storage.Offset), 14, Broadcast, FontBold})
	} else if lt.storage != nil {
		out = append(out, panelLine{"", 0, Ink, FontRegular})
		out = append(out, s.storageLines(*lt.storage)...)
		out = append(out, panelLine{fmt.Sprintf("%d of them drawn here, tinted", drawn), 14, Broadcast, FontRegular})
	}
	return out
}

// hiddenLine stands for the lines a question's answer would give away.
var hiddenLine = panelLine{"= ?  (" + Hidden + ")", formulaPx, Path, FontMono}

// cellLines say what output cell sel reads: the offset formula per
// operand, or the elements a reduce combines.
func (s *indexScene) cellLines(sel []int, reads []Read, hide bool) []panelLine {
	var out []panelLine
	if hide {
		return []panelLine{hiddenLine}
	}
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
			idx = view.Shape().Unravel(linear(s.out, sel))
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
