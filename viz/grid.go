package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// A Grid places the cells of a tensor of any rank on a plane, the way
// treescope facets arrays: the last dim runs along x, the one before it
// along y, and each leading dim becomes a row or column of tiles (the
// innermost leading dim across, the next down, alternating), each tile
// labelled with its leading indices, e.g. [1, 0, :, :]. Rank > 2 is
// faceted, never refused. Past a budget of indices per axis (Visible) the
// middle of the axis is elided with a gap mark, so a grid of a
// 10⁹-element view lays out a few dozen cells.

// GridCell is one drawn cell: its index in the tensor and its box.
type GridCell struct {
	Index      []int
	X, Y, W, H float64
}

// Center returns the middle of the cell's box.
func (c GridCell) Center() (float64, float64) { return c.X + c.W/2, c.Y + c.H/2 }

// Grid is a laid-out tensor: its cells and the marks around them (tile
// labels, gap marks), in pixels, its top left at (X, Y) (0, 0 until
// Moved).
type Grid struct {
	Shape tensor.Shape
	Cells []GridCell
	Marks []Item
	X, Y  float64
	W, H  float64
	Cell  float64 // the side of one cell
	// Tall tiles the innermost leading dim down instead of across (and
	// the next across, alternating): FitGrid picks it where a frame is
	// tall and narrow (a phone), so the cells come out larger.
	Tall bool
}

// GridBudget is how many indices an axis shows before it is elided: Inner
// for the two innermost dims, Outer for the tiled leading dims. Keep lists,
// per dim, indices that stay visible whatever the budget (a shard's first
// and last row, so that no device vanishes into a gap).
type GridBudget struct {
	Inner, Outer int
	Keep         [][]int
}

// visible is the indices dim d of n shows under b.
func (b GridBudget) visible(d, n, budget int) []int {
	if d < len(b.Keep) && len(b.Keep[d]) > 0 {
		return visibleKeeping(n, budget, b.Keep[d])
	}
	return Visible(n, budget)
}

// DefaultBudget keeps a grid readable on a slide.
var DefaultBudget = GridBudget{Inner: 12, Outer: 5}

// LayoutGrid lays shape out with cells of side cell.
func LayoutGrid(shape tensor.Shape, cell float64, b GridBudget) Grid {
	g := Grid{Shape: shape.Clone(), Cell: cell}
	w, h := g.block(shape, nil, 0, 0, b)
	g.W, g.H = w, h
	return g
}

// FitGrid lays shape out as large as fits w×h, with cells of at most
// maxCell pixels, tiling its leading dims across or, where that gives
// cells at least an eighth larger, down (Tall). Labels do not scale with
// the cells, so it measures at a nominal size, scales, and measures again.
func FitGrid(shape tensor.Shape, w, h, maxCell float64, b GridBudget) Grid {
	g := fitGrid(shape, w, h, maxCell, b, false)
	if len(shape) < 3 {
		return g
	}
	if t := fitGrid(shape, w, h, maxCell, b, true); t.Cell > 1.125*g.Cell {
		return t
	}
	return g
}

func fitGrid(shape tensor.Shape, w, h, maxCell float64, b GridBudget, tall bool) Grid {
	layout := func(cell float64) Grid {
		g := Grid{Shape: shape.Clone(), Cell: cell, Tall: tall}
		g.W, g.H = g.block(shape, nil, 0, 0, b)
		return g
	}
	cell := maxCell
	for range 3 {
		g := layout(cell)
		scale := min(w/max(g.W, 1), h/max(g.H, 1))
		if scale >= 1 && cell == maxCell {
			return g
		}
		cell = max(4, min(maxCell, cell*scale*0.98))
	}
	return layout(cell)
}

// gapSize is the room a gap mark or the space between tiles takes.
func (g *Grid) gapSize() float64 { return g.Cell * 0.7 }

// labelSize is the tile labels' size: it scales with the cells, so a grid
// shrunk to fit stays inside its box; under MinText, tile labels are left
// out (the gaps between tiles still show the leading dims).
func (g *Grid) labelSize() float64 { return min(13, g.Cell*0.38) }

// labelled reports whether tile labels are drawn at this cell size.
func (g *Grid) labelled() bool { return g.labelSize() >= MinText }

// block lays out the dims of shape (the trailing part of the whole shape
// after the leading indices prefix) at (x, y) and returns its size.
func (g *Grid) block(shape tensor.Shape, prefix []int, x, y float64, b GridBudget) (float64, float64) {
	switch len(shape) {
	case 0:
		g.Cells = append(g.Cells, GridCell{Index: append([]int{}, prefix...), X: x, Y: y, W: g.Cell, H: g.Cell})
		return g.Cell, g.Cell
	case 1, 2:
		last := len(g.Shape) - 1
		rows, cols := []int{0}, b.visible(last, shape[len(shape)-1], b.Inner)
		if len(shape) == 2 {
			rows = b.visible(last-1, shape[0], b.Inner)
		}
		cy := y
		for _, r := range rows {
			if r == Gap {
				g.gapMark(x, cy, g.spanW(cols), g.gapSize(), "…")
				cy += g.gapSize()
				continue
			}
			cx := x
			for _, c := range cols {
				if c == Gap {
					g.gapMark(cx, cy, g.gapSize(), g.Cell, "…")
					cx += g.gapSize()
					continue
				}
				idx := append(append([]int{}, prefix...), c)
				if len(shape) == 2 {
					idx = append(append([]int{}, prefix...), r, c)
				}
				g.Cells = append(g.Cells, GridCell{Index: idx, X: cx, Y: cy, W: g.Cell, H: g.Cell})
				cx += g.Cell
			}
			cy += g.Cell
		}
		if shape[len(shape)-1] == 0 || (len(shape) == 2 && shape[0] == 0) {
			g.Marks = append(g.Marks, Rect{X: x, Y: y, W: g.Cell * 2, H: g.Cell, Stroke: Muted, StrokeWidth: 1, Dash: true},
				Text{X: x + g.Cell, Y: y + g.Cell*0.62, S: "empty", Size: max(MinText, g.labelSize()), Color: Muted, Anchor: AnchorMiddle})
			return g.Cell * 2, g.Cell
		}
		return g.spanW(cols), cy - y
	}
	// A leading dim: tiles across when the rest has even rank, else down.
	across := ((len(shape)-2)%2 == 1) != g.Tall
	idx := b.visible(len(prefix), shape[0], b.Outer)
	if shape[0] == 0 {
		g.Marks = append(g.Marks, Text{X: x, Y: y + g.labelSize(), S: fmt.Sprintf("dim %d is empty", len(prefix)), Size: max(MinText, g.labelSize()), Color: Muted})
		return g.Cell * 3, g.Cell
	}
	label := g.labelSize() * 1.5
	cx, cy := x, y
	var w, h float64
	for _, i := range idx {
		if i == Gap {
			if across {
				g.gapMark(cx, cy+label, g.gapSize(), g.Cell, "…")
				cx += g.gapSize() * 1.5
			} else {
				g.gapMark(cx, cy, g.Cell, g.gapSize(), "…")
				cy += g.gapSize() * 1.5
			}
			continue
		}
		p := append(append([]int{}, prefix...), i)
		ty := cy
		labelW := 0.0
		if len(shape) == 3 && g.labelled() { // innermost tiles carry the label of every leading index
			l := tileLabel(p, len(shape)-1)
			g.Marks = append(g.Marks, Text{X: cx, Y: cy + g.labelSize(), S: l, Size: g.labelSize(), Color: Muted, Font: FontMono})
			ty += label
			labelW = TextWidth(l, FontMono, g.labelSize())
		}
		bw, bh := g.block(shape[1:], p, cx, ty, b)
		bw = max(bw, labelW)
		bh += ty - cy
		if across {
			cx += bw + g.gapSize()
			w, h = cx-x-g.gapSize(), max(h, bh)
		} else {
			cy += bh + g.gapSize()
			w, h = max(w, bw), cy-y-g.gapSize()
		}
	}
	return w, h
}

// tileLabel spells the leading indices of a tile: [1, :, :] for one
// leading dim, [1,0,2] (the leading indices alone) for more.
func tileLabel(prefix []int, rest int) string {
	parts := make([]string, 0, len(prefix)+rest)
	for _, i := range prefix {
		parts = append(parts, fmt.Sprint(i))
	}
	if len(prefix) > 1 {
		return "[" + strings.Join(parts, ",") + "]"
	}
	for range rest {
		parts = append(parts, ":")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (g *Grid) spanW(cols []int) float64 {
	w := 0.0
	for _, c := range cols {
		if c == Gap {
			w += g.gapSize()
		} else {
			w += g.Cell
		}
	}
	return w
}

func (g *Grid) gapMark(x, y, w, h float64, s string) {
	size := g.labelSize()
	g.Marks = append(g.Marks, Text{X: x + w/2, Y: y + h/2 + size*0.35, S: s, Size: max(MinText, size*1.2), Color: Muted, Anchor: AnchorMiddle})
}

// Find returns the cell of index, if it is drawn.
func (g Grid) Find(index []int) (GridCell, bool) {
	for _, c := range g.Cells {
		if slices.Equal(c.Index, index) {
			return c, true
		}
	}
	return GridCell{}, false
}

// Moved returns g translated by (dx, dy).
func (g Grid) Moved(dx, dy float64) Grid {
	out := g
	out.X, out.Y = g.X+dx, g.Y+dy
	out.Cells = make([]GridCell, len(g.Cells))
	for i, c := range g.Cells {
		c.X, c.Y = c.X+dx, c.Y+dy
		out.Cells[i] = c
	}
	out.Marks = make([]Item, len(g.Marks))
	for i, m := range g.Marks {
		out.Marks[i] = move(m, dx, dy)
	}
	return out
}

func move(it Item, dx, dy float64) Item {
	switch v := it.(type) {
	case Rect:
		v.X, v.Y = v.X+dx, v.Y+dy
		return v
	case Line:
		v.X1, v.Y1, v.X2, v.Y2 = v.X1+dx, v.Y1+dy, v.X2+dx, v.Y2+dy
		return v
	case Text:
		v.X, v.Y = v.X+dx, v.Y+dy
		return v
	}
	return it
}
