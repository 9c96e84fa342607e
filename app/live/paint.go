package live

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// Paint draws frame f onto dst through the transform
//
//	dst point = (OffX, OffY) + Scale·(frame point)
//
// Axis-aligned rects (fills, outlines, dash runs) go through DrawImage,
// which Ebitengine batches into one draw call; lines, arrow heads and
// hatching are anti-aliased vector paths; text is viz/render's own glyph
// masks of the embedded Go fonts. The rules for dashes, hatch lines and
// arrow heads are viz/render's too, so the window and the exported files
// agree.
type Transform struct {
	OffX, OffY, Scale float64
}

func (t Transform) pt(x, y float64) (float32, float32) {
	return float32(t.OffX + t.Scale*x), float32(t.OffY + t.Scale*y)
}

// Paint draws f's items onto dst (the caller fills the background).
func Paint(dst *ebiten.Image, f viz.Frame, t Transform) {
	for _, it := range f.Items {
		paintItem(dst, it, t)
	}
}

func paintItem(dst *ebiten.Image, it viz.Item, t Transform) {
	switch it := it.(type) {
	case viz.Rect:
		paintRect(dst, it, t)
	case viz.Line:
		paintLine(dst, it, t)
	case viz.Text:
		paintText(dst, it, t)
	}
}

func rgba(c viz.Color) color.Color { return color.NRGBA{c.R, c.G, c.B, c.A} }

// box fills the frame rect (x, y, w, h) without anti-aliasing.
func box(dst *ebiten.Image, x, y, w, h float64, c viz.Color, t Transform) {
	if w <= 0 || h <= 0 {
		return
	}
	px, py := t.pt(x, y)
	vector.FillRect(dst, px, py, float32(w*t.Scale), float32(h*t.Scale), rgba(c), false)
}

func paintRect(dst *ebiten.Image, r viz.Rect, t Transform) {
	if r.W <= 0 || r.H <= 0 {
		return
	}
	if r.Fill.Visible() {
		box(dst, r.X, r.Y, r.W, r.H, r.Fill, t)
	}
	if r.Hatch && r.Stroke.Visible() {
		hatch(dst, r, t)
	}
	if !r.Stroke.Visible() || r.StrokeWidth <= 0 {
		return
	}
	w := r.StrokeWidth
	if !r.Dash {
		box(dst, r.X-w/2, r.Y-w/2, r.W+w, w, r.Stroke, t)     // top
		box(dst, r.X-w/2, r.Y+r.H-w/2, r.W+w, w, r.Stroke, t) // bottom
		box(dst, r.X-w/2, r.Y+w/2, w, r.H-w, r.Stroke, t)     // left
		box(dst, r.X+r.W-w/2, r.Y+w/2, w, r.H-w, r.Stroke, t) // right
		return
	}
	// Clockwise from the top left corner, one dash pattern all round.
	phase := render.Dashes(r.W, w, 0, func(a, b float64) { box(dst, r.X+a, r.Y-w/2, b-a, w, r.Stroke, t) })
	phase = render.Dashes(r.H, w, phase, func(a, b float64) { box(dst, r.X+r.W-w/2, r.Y+a, w, b-a, r.Stroke, t) })
	phase = render.Dashes(r.W, w, phase, func(a, b float64) { box(dst, r.X+r.W-b, r.Y+r.H-w/2, b-a, w, r.Stroke, t) })
	render.Dashes(r.H, w, phase, func(a, b float64) { box(dst, r.X-w/2, r.Y+r.H-b, w, b-a, r.Stroke, t) })
}

// hatch strokes the lines x+y = k·HatchPeriod that cross r.
func hatch(dst *ebiten.Image, r viz.Rect, t Transform) {
	m := mesh{col: r.Stroke}
	const period = render.HatchPeriod
	for k := math.Ceil((r.X + r.Y) / period); k*period <= r.X+r.W+r.Y+r.H; k++ {
		s := k * period // x + y = s, clipped to the rect
		x0, x1 := max(r.X, s-(r.Y+r.H)), min(r.X+r.W, s-r.Y)
		if x1 <= x0 {
			continue
		}
		ax, ay := t.pt(x0, s-x0)
		bx, by := t.pt(x1, s-x1)
		m.segment(ax, ay, bx, by, float32(render.HatchWidth*t.Scale))
	}
	m.draw(dst)
}

// mesh collects triangles of one colour: segments as quads and arrow
// heads, drawn in one call (Ebitengine batches DrawTriangles of the same
// source, so a frame's lines cost a few draw calls, where stencilled
// vector paths cost llvmpipe a pass each).
type mesh struct {
	col viz.Color
	vs  []ebiten.Vertex
	is  []uint16
}

// segment adds a line of width w from (x0, y0) to (x1, y1), butt-ended.
func (m *mesh) segment(x0, y0, x1, y1, w float32) {
	dx, dy := x1-x0, y1-y0
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n == 0 {
		return
	}
	nx, ny := -dy/n*w/2, dx/n*w/2
	m.poly([][2]float32{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x1 - nx, y1 - ny}, {x0 - nx, y0 - ny}})
}

// poly adds a convex polygon.
func (m *mesh) poly(pts [][2]float32) {
	if len(m.vs)+len(pts) > math.MaxUint16 {
		return // a frame never holds this much of one line
	}
	base := uint16(len(m.vs))
	for _, p := range pts {
		m.vs = append(m.vs, ebiten.Vertex{DstX: p[0], DstY: p[1], SrcX: 1, SrcY: 1, // straight alpha
			ColorR: float32(m.col.R) / 255, ColorG: float32(m.col.G) / 255, ColorB: float32(m.col.B) / 255, ColorA: float32(m.col.A) / 255})
	}
	for i := 1; i+1 < len(pts); i++ {
		m.is = append(m.is, base, base+uint16(i), base+uint16(i+1))
	}
}

// white is the source of every mesh: the middle pixel of a white 3×3,
// so sampling never reaches an edge.
var white = func() *ebiten.Image {
	img := ebiten.NewImage(3, 3)
	img.Fill(color.White)
	return img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image)
}()

func (m *mesh) draw(dst *ebiten.Image) {
	if len(m.is) == 0 {
		return
	}
	dst.DrawTriangles(m.vs, m.is, white, &ebiten.DrawTrianglesOptions{})
}

func paintLine(dst *ebiten.Image, l viz.Line, t Transform) {
	n := math.Hypot(l.X2-l.X1, l.Y2-l.Y1)
	if l.Width <= 0 || !l.Color.Visible() || n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return
	}
	m := mesh{col: l.Color}
	end := l
	if l.Arrow {
		if bx, by, head, ok := render.ArrowHead(l); ok {
			end.X2, end.Y2 = bx, by
			var pts [][2]float32
			for _, h := range head {
				x, y := t.pt(h[0], h[1])
				pts = append(pts, [2]float32{x, y})
			}
			m.poly(pts)
		}
	}
	dx, dy := (end.X2-end.X1)/n, (end.Y2-end.Y1)/n
	w := float32(l.Width * t.Scale)
	seg := func(a, b float64) {
		x0, y0 := t.pt(end.X1+dx*a, end.Y1+dy*a)
		x1, y1 := t.pt(end.X1+dx*b, end.Y1+dy*b)
		m.segment(x0, y0, x1, y1, w)
	}
	length := math.Hypot(end.X2-end.X1, end.Y2-end.Y1)
	if l.Dash {
		render.Dashes(length, l.Width, 0, seg)
	} else {
		seg(0, length)
	}
	m.draw(dst)
}

// glyphs are the window's textures of render's glyph masks, made once
// each. render hands out the same mask for the same glyph until its cache
// starts afresh, so this cache is cleared past maxGlyphImages.
var glyphs = map[*image.Alpha]*ebiten.Image{}

// maxGlyphImages bounds the textures kept: every printable ASCII glyph
// of the three fonts at four offsets and a dozen sizes.
const maxGlyphImages = 3 * 95 * 4 * 12

func glyphImage(m *image.Alpha) *ebiten.Image {
	if img, ok := glyphs[m]; ok {
		return img
	}
	if len(glyphs) >= maxGlyphImages {
		for k, img := range glyphs {
			img.Deallocate()
			delete(glyphs, k)
		}
	}
	img := ebiten.NewImageFromImage(m) // white, premultiplied by the coverage
	glyphs[m] = img
	return img
}

// paintText draws a text from the glyphs viz/render rasterises (the same
// masks, pen positions and kerning as the exported PNG), each a texture
// tinted by the text's colour; Ebitengine batches them.
func paintText(dst *ebiten.Image, tx viz.Text, t Transform) {
	st := tx
	st.X, st.Y = t.OffX+t.Scale*tx.X, t.OffY+t.Scale*tx.Y
	st.Size = tx.Size * t.Scale
	render.TextGlyphs(st, func(g render.Glyph) {
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Translate(float64(g.X), float64(g.Y))
		op.ColorScale.ScaleWithColor(rgba(tx.Color))
		dst.DrawImage(glyphImage(g.Mask), op)
	})
}
