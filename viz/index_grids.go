package viz

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

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
