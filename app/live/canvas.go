package live

import (
	"image"
	"math"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// sceneCanvas is a rect of the screen (which keeps its pixels from frame
// to frame) and the frame last painted there. Hovering changes a few
// items of a frame (a cell's fill, a wire, the panel's formula), so show
// repaints only the regions where the new frame's items differ from the
// old one's: each region is cleared and every item of the new frame that
// reaches it is painted again, clipped to it, in the frame's order. The
// picture is the same as a full paint.
type sceneCanvas struct {
	bounds image.Rectangle // where on the screen
	frame  viz.Frame
	t      Transform
	valid  bool
}

// invalidate makes the next show paint the whole rect (the screen under
// it was drawn over).
func (c *sceneCanvas) invalidate() { c.valid = false }

// Past this share of the image a full repaint is as cheap as regions.
const maxDirtyShare = 0.35

// show makes dst (a sub-image of the screen) picture f through t, whose
// offset places the frame in dst's bounds, and reports whether any pixel
// was painted.
func (c *sceneCanvas) show(dst *ebiten.Image, f viz.Frame, t Transform) bool {
	if dst.Bounds() != c.bounds {
		c.bounds, c.valid = dst.Bounds(), false
	}
	if c.valid && c.t == t && c.frame.W == f.W && c.frame.H == f.H && c.frame.Background == f.Background {
		if len(f.Items) > 0 && len(c.frame.Items) == len(f.Items) && &f.Items[0] == &c.frame.Items[0] {
			return false // the same frame
		}
		if rects, ok := c.dirty(f, t); ok {
			bounds := make([]image.Rectangle, len(f.Items))
			for i, it := range f.Items {
				bounds[i] = itemBounds(it, t)
			}
			for _, r := range rects {
				sub := dst.SubImage(r).(*ebiten.Image)
				sub.Fill(rgba(f.Background))
				for i, it := range f.Items {
					if bounds[i].Overlaps(r) {
						paintItem(sub, it, t)
					}
				}
			}
			c.frame = f
			return len(rects) > 0
		}
	}
	dst.Fill(rgba(f.Background))
	Paint(dst, f, t)
	c.frame, c.t, c.valid = f, t, true
	return true
}

// dirty returns the device rects where f differs from the painted frame
// (items present in one and not the other, counted as multisets), merged
// where they overlap; ok is false when a full repaint is better.
func (c *sceneCanvas) dirty(f viz.Frame, t Transform) ([]image.Rectangle, bool) {
	count := make(map[viz.Item]int, len(c.frame.Items))
	for _, it := range c.frame.Items {
		count[it]++
	}
	var changed []viz.Item
	for _, it := range f.Items {
		if count[it] > 0 {
			count[it]--
		} else {
			changed = append(changed, it)
		}
	}
	for it, n := range count {
		for ; n > 0; n-- {
			changed = append(changed, it)
		}
	}
	bounds := c.bounds
	var rects []image.Rectangle
	area := 0
	for _, it := range changed {
		r := itemBounds(it, t).Intersect(bounds)
		if r.Empty() {
			continue
		}
		rects = mergeRect(rects, r)
	}
	for _, r := range rects {
		area += r.Dx() * r.Dy()
	}
	return rects, float64(area) <= maxDirtyShare*float64(bounds.Dx()*bounds.Dy())
}

// mergeRect adds r to rects, merging every rect it overlaps into one.
func mergeRect(rects []image.Rectangle, r image.Rectangle) []image.Rectangle {
	for {
		merged := false
		for i := 0; i < len(rects); i++ {
			if rects[i].Overlaps(r) {
				r = r.Union(rects[i])
				rects = append(rects[:i], rects[i+1:]...)
				merged = true
				break
			}
		}
		if !merged {
			return append(rects, r)
		}
	}
}

// itemBounds is the device rect an item can paint, rounded outwards with
// a pixel to spare for anti-aliasing.
func itemBounds(it viz.Item, t Transform) image.Rectangle {
	var x0, y0, x1, y1 float64
	switch it := it.(type) {
	case viz.Rect:
		p := it.StrokeWidth/2 + 1
		x0, y0, x1, y1 = it.X-p, it.Y-p, it.X+it.W+p, it.Y+it.H+p
	case viz.Line:
		p := it.Width/2 + 1
		if it.Arrow {
			p += max(8, 4*it.Width)
		}
		x0, x1 = min(it.X1, it.X2)-p, max(it.X1, it.X2)+p
		y0, y1 = min(it.Y1, it.Y2)-p, max(it.Y1, it.Y2)+p
	case viz.Text:
		// No glyph of the Go fonts is wider than an em: a bound that needs
		// no measuring (this runs for every item of a frame).
		w := it.Size * float64(utf8.RuneCountInString(it.S))
		x0 = it.X - w*render.AnchorShift(it.Anchor) - 2
		x1 = x0 + w + 4
		y0, y1 = it.Y-1.1*it.Size-2, it.Y+0.4*it.Size+2
	}
	ax, ay := t.pt(x0, y0)
	bx, by := t.pt(x1, y1)
	return image.Rect(int(math.Floor(float64(ax)))-1, int(math.Floor(float64(ay)))-1, int(math.Ceil(float64(bx)))+1, int(math.Ceil(float64(by)))+1)
}
