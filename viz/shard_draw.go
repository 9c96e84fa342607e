package viz

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// The shard scenes' picture: the title; the logical tensor, every cell
// coloured and labelled by the devices holding it (r0, r1,…; "all" under
// B; hatched when partial); below it one panel per device, laid out as the
// mesh is, with its shard, shape and range; on the right what the step
// says (the shard, the per-rank rewrite, the collective and its bytes).

func (s *shardScene) draw(step int, f *Focus, c *canvas) {
	W, H := float64(c.frame.W), float64(c.frame.H)
	narrow := W < narrowW
	mainW, pw := W-2*margin, W-2*margin
	if !narrow {
		pw = min(panelW, max(280, 0.3*W))
		mainW = W - pw - 3*margin
	}
	y := c.header(s.title, s.notes, mainW)
	nd := s.layouts[step]
	shards, err := sbp.Shards(s.shape, s.placement, nd)
	focus := s.light(step, f, shards)
	if c.hide { // a question is open: the focused cell is lit, not who holds it
		focus.lit = nil
	}
	if err != nil {
		c.text(margin, y+30, err.Error(), 15, Path, FontRegular, AnchorStart)
		return
	}
	lines := s.panelLines(step, f, shards, c.hide)
	top := y + 52 // room for the global caption under the notes
	mainH := H - top - margin
	if narrow { // the logical tensor, the devices under it, the panel under them
		mainH = max(0.6*(H-top), mainH-panelHeight(lines)-16)
	}
	px, py := W-pw-margin, c.titleBottom+16
	switch g := LayoutGrid(s.shape, 40, shardBudget(s.shape, shards)); {
	case narrow:
		globalH := mainH * 0.5
		end := s.drawGlobal(c, shards, margin, top, mainW, globalH-40, focus)
		devTop := min(top+globalH, end+24)
		px, py = margin, s.drawDevices(c, shards, margin, devTop, mainW, mainH-(devTop-top), focus)
	case g.W > 1.3*g.H: // a wide tensor: the logical view on top, the devices below it
		globalH := mainH * 0.45
		s.drawGlobal(c, shards, margin, top, mainW, globalH-40, focus)
		s.drawDevices(c, shards, margin, top+globalH, mainW, mainH-globalH, focus)
	default:
		globalW := mainW * 0.42
		s.drawGlobal(c, shards, margin, top, globalW, mainH-30, focus)
		s.drawDevices(c, shards, margin+globalW+margin, top-20, mainW-globalW-margin, mainH+20, focus)
	}
	c.panel(px, py, pw, lines)
}

// panelLines are the panel's words at step: what the step does, what the
// focus is (while a question is open, only its name), and where the
// steps stand.
func (s *shardScene) panelLines(step int, f *Focus, shards []sbp.Shard, hide bool) []panelLine {
	var out []panelLine
	focused := s.focusLines(f, shards)
	if hide && len(focused) > 0 {
		focused = []string{strings.SplitN(focused[0], " is held", 2)[0], "held by ?  (" + Hidden + ")"}
	}
	for k, lines := range [][]string{s.captions[step], focused} {
		if k > 0 && len(lines) > 0 {
			out = append(out, panelLine{"", 6, Ink, FontRegular})
		}
		for i, line := range lines {
			l := panelLine{line, 14, Ink, FontMono}
			if i == 0 {
				l.size, l.font = 16, FontBold
			}
			out = append(out, l)
		}
	}
	out = append(out, panelLine{"", 14, Ink, FontRegular},
		panelLine{fmt.Sprintf("step %d of %d — now %v", step+1, len(s.layouts), s.layouts[step]), 14, Muted, FontRegular})
	return out
}

// owners lists the shards holding index (by their place in shards).
func owners(shards []sbp.Shard, index []int) []int {
	var out []int
	for i, sh := range shards {
		in := true
		for d, x := range index {
			if x < sh.Lo[d] || x >= sh.Hi[d] {
				in = false
				break
			}
		}
		if in {
			out = append(out, i)
		}
	}
	return out
}

// It returns the bottom of what it drew. While a question is open the
// cells are neither coloured nor labelled by their devices.
func (s *shardScene) drawGlobal(c *canvas, shards []sbp.Shard, x, y, w, h float64, focus shardLight) float64 {
	g := FitGrid(s.shape, w, h, maxCell, shardBudget(s.shape, shards)).Moved(x, y)
	caption := fmt.Sprintf("the logical tensor %v: each cell names its devices", s.shape)
	if c.hide {
		caption = fmt.Sprintf("the logical tensor %v: which devices hold a cell?", s.shape)
	}
	caption, cs := fitLabel(caption, FontRegular, 14, w)
	c.text(x, y-22, caption, cs, Ink, FontRegular, AnchorStart)
	c.add(g.Marks...)
	partial := len(shards) > 0 && shards[0].Partial
	type look struct {
		fill  Color
		label string
	}
	looks := make([]look, len(g.Cells))
	labels := make([]string, len(g.Cells))
	for i, gc := range g.Cells {
		own := owners(shards, gc.Index)
		fill, label := CellFill, ""
		switch {
		case len(own) == len(shards) && len(shards) > 1:
			label = "all"
		case len(own) == 1:
			fill, label = DeviceColor(shards[own[0]].Position), fmt.Sprintf("r%d", shards[own[0]].Rank)
		case len(own) > 1:
			fill = Tint(DeviceColor(shards[own[0]].Position), 0.45)
			names := make([]string, len(own))
			for i, o := range own {
				names[i] = fmt.Sprint(shards[o].Rank)
			}
			label = "r" + strings.Join(names, ",")
		}
		if c.hide {
			fill, label = CellFill, "?"
		}
		looks[i], labels[i] = look{fill, label}, label
	}
	// A grid's labels are drawn at one size, or left out where one does
	// not fit its cell at MinText (the colour and the device boxes still
	// say the rank).
	fs, labelled := gridText(labels, min(14, g.Cell*0.34), g.Cell-3)
	labelled = labelled && g.Cell >= fs+2
	for i, gc := range g.Cells {
		fill, label := looks[i].fill, looks[i].label
		own := owners(shards, gc.Index)
		focused := focus.lit != nil && containsShard(own, shards, focus.lit)
		if focus.lit != nil && !focused {
			fill = Tint(fill, 0.7)
		}
		r := Rect{X: gc.X + 1, Y: gc.Y + 1, W: gc.W - 2, H: gc.H - 2, Fill: fill, Stroke: Faint, StrokeWidth: 1}
		if partial {
			r.Hatch, r.Stroke = true, hatchOn(fill)
		}
		if focused {
			r.Stroke, r.StrokeWidth = Ink, 2.5
		}
		if slices.Equal(gc.Index, focus.cell) {
			r.Stroke, r.StrokeWidth = Path, 4
		}
		c.add(r)
		if labelled && label != "" {
			c.add(Text{X: gc.X + gc.W/2, Y: gc.Y + gc.H/2 + fs*0.36, S: label, Size: fs, Color: TextOn(fill), Font: FontMono, Anchor: AnchorMiddle})
		}
		c.hot(Hot{X: gc.X, Y: gc.Y, W: gc.W, H: gc.H, Focus: Focus{Kind: FocusCell, Operand: "global", Index: gc.Index}})
	}
	end := y + g.H
	if partial {
		c.add(badge(x, y+g.H+14, w, "P("+partialOp(s.layouts)+"): partial values,", "hatched until reduced")...)
		end += 14 + 36
	}
	return end
}

// shardBudget keeps every shard's first and last index along each axis
// visible, so no device vanishes into an elided run.
func shardBudget(shape tensor.Shape, shards []sbp.Shard) GridBudget {
	b := DefaultBudget
	b.Keep = make([][]int, len(shape))
	for _, sh := range shards {
		for d := range shape {
			if sh.Hi[d] > sh.Lo[d] {
				b.Keep[d] = append(b.Keep[d], sh.Lo[d], sh.Hi[d]-1)
			}
		}
	}
	return b
}

func containsShard(own []int, shards []sbp.Shard, lit map[int]bool) bool {
	for _, o := range own {
		if lit[shards[o].Position] {
			return true
		}
	}
	return false
}

func partialOp(layouts []sbp.NdSbp) string {
	for _, nd := range layouts {
		for _, x := range nd {
			if x.Kind == sbp.Partial {
				return x.Op.String()
			}
		}
	}
	return "sum"
}

// hatchOn is the hatching colour that shows on fill: dark lines on a light
// fill, light lines on a dark one.
func hatchOn(fill Color) Color {
	if TextOn(fill) == Ink {
		return Tint(Ink, 0.45)
	}
	return Tint(Paper, 0.2)
}

// badge is a hatched swatch and its meaning, for marks such as P(sum).
func badge(x, y, w float64, first, rest string) []Item {
	items := []Item{Rect{X: x, Y: y, W: 18, H: 18, Fill: CellFill, Stroke: Tint(Ink, 0.55), StrokeWidth: 1, Hatch: true}}
	// One line where it fits width w, else two (the second under the first).
	if line := first + " " + rest; TextWidth(line, FontBold, 13) <= w-26 {
		return append(items, Text{X: x + 26, Y: y + 14, S: line, Size: 13, Color: Ink, Font: FontBold})
	}
	size := fitText(first, FontBold, 13, w-26)
	return append(items,
		Text{X: x + 26, Y: y + 14, S: first, Size: size, Color: Ink, Font: FontBold},
		Text{X: x + 26, Y: y + 14 + size + 3, S: rest, Size: fitText(rest, FontBold, size, w-26), Color: Ink, Font: FontBold})
}

// drawDevices lays one panel per device out as the mesh is (a 1-D
// placement wraps into rows), each with its shard.
//
// It returns the bottom of the lowest box.
func (s *shardScene) drawDevices(c *canvas, shards []sbp.Shard, x, y, w, h float64, focus shardLight) float64 {
	n := len(shards)
	cols := n
	if hier := s.placement.Hierarchy(); len(hier) == 2 {
		cols = hier[1]
	} else if n > 4 {
		cols = int(math.Ceil(math.Sqrt(float64(n) * w / max(h, 1))))
		cols = min(cols, n)
	}
	// A device's box is at least minDeviceW wide: on a narrow frame the
	// mesh's rows wrap.
	cols = max(1, min(cols, int(w/minDeviceW)))
	rows := (n + cols - 1) / cols
	bw, bh := w/float64(cols), h/float64(rows)
	rowY, rowH := y, 0.0 // a row is as high as its highest box: boxes fit their shards
	for i, sh := range shards {
		if i > 0 && i%cols == 0 {
			rowY, rowH = rowY+rowH, 0
		}
		rowH = max(rowH, s.drawDevice(c, sh, x+float64(i%cols)*bw+4, rowY+4, bw-8, bh-8, focus)+8)
	}
	return rowY + rowH
}

// minDeviceW is the narrowest a device's box is drawn: its header, its
// shard's shape and a few of its cells at MinText.
const minDeviceW = 132.0

// drawDevice draws one device's box at (x, y), at most w×h, and returns
// the height it drew.
func (s *shardScene) drawDevice(c *canvas, sh sbp.Shard, x, y, w, h float64, focus shardLight) float64 {
	col := DeviceColor(sh.Position)
	width, box, fill := 2.0, Tint(col, 0.88), Tint(col, 0.35)
	switch {
	case focus.lit[sh.Position]:
		width = 4
	case focus.lit != nil: // another device is lit: this one steps back
		box, fill = Tint(col, 0.96), Tint(col, 0.75)
	}
	var g Grid
	if w >= 40 && h >= 70 {
		// A narrow box shows fewer cells a row, so they stay wide enough
		// for a label at MinText (26 px: three digits), up to six.
		inner := max(3, min(6, int((w-16)/26-0.7)))
		g = FitGrid(sh.Shape, w-16, h-52, 30, GridBudget{Inner: inner, Outer: 3}).Moved(x+8, y+44)
		h = min(h, g.H+60) // the box fits its shard
	}
	c.add(Rect{X: x, Y: y, W: w, H: h, Fill: box, Stroke: col, StrokeWidth: width})
	head := fmt.Sprintf("rank %d %v", sh.Rank, sh.Coord)
	head, hs := fitLabel(head, FontBold, 14, w-16)
	c.text(x+8, y+18, head, hs, Ink, FontBold, AnchorStart)
	sub := fmt.Sprintf("shard %v", sh.Shape)
	if sh.Partial {
		sub = fmt.Sprintf("%v partial", sh.Shape)
	}
	sub, ss := fitLabel(sub, FontMono, 12, w-16)
	c.text(x+8, y+34, sub, ss, Ink, FontMono, AnchorStart)
	c.hot(Hot{X: x, Y: y, W: w, H: h, Focus: Focus{Kind: FocusDevice, Rank: sh.Rank}})
	if g.Cells == nil {
		return h
	}
	cell := g.Cell
	c.add(g.Marks...)
	labels := make([]string, len(g.Cells))
	for i, gc := range g.Cells {
		global := make([]int, len(gc.Index))
		for d, j := range gc.Index {
			global[d] = sh.Lo[d] + j
		}
		labels[i] = c.answer(fmt.Sprint(linear(s.shape, global)))
	}
	fs, labelled := gridText(labels, min(12, cell*0.4), cell-3)
	for i, gc := range g.Cells {
		global := make([]int, len(gc.Index))
		for d, i := range gc.Index {
			global[d] = sh.Lo[d] + i
		}
		r := Rect{X: gc.X + 0.5, Y: gc.Y + 0.5, W: gc.W - 1, H: gc.H - 1, Fill: fill, Stroke: col, StrokeWidth: 1}
		if sh.Partial {
			r.Hatch, r.Stroke = true, hatchOn(fill)
		}
		if slices.Equal(global, focus.cell) && !c.hide {
			r.Fill, r.Stroke, r.StrokeWidth = Highlight, Path, 3
		}
		c.add(r)
		if labelled {
			c.add(Text{X: gc.X + gc.W/2, Y: gc.Y + gc.H/2 + fs*0.36, S: labels[i], Size: fs, Color: TextOn(r.Fill), Font: FontMono, Anchor: AnchorMiddle})
		}
	}
	return h
}
