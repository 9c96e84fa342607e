package viz

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

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
