package viz

import "math"

// Fitting is how a scene fills a viewport of CSS pixels: it is laid out
// for Size (scene pixels) and drawn Scale CSS pixels per scene pixel.
//
// A viewport no larger than a slide (DefaultSize, 1280×720) in either
// dimension is laid out at its own size and drawn at scale 1, so a
// phone's 370-px frame gets a 370-px layout whose panels stack, never a
// slide shrunk until nothing can be read. A larger viewport (a projector)
// is laid out as the slide-sized part of it and drawn larger:
//
//	Scale = max(1, min(W/1280, H/720)),  Size = (W/Scale, H/Scale)
//
// so the scene's text grows with the page's instead of staying small in
// a wide field. Sizes are rounded down to whole pixels and kept at least
// the smallest frame (320×240).
type Fitting struct {
	Size  Size
	Scale float64
}

// FitViewport is the fitting of a w×h CSS-pixel viewport.
func FitViewport(w, h float64) Fitting {
	d := DefaultSize
	k := math.Max(1, math.Min(w/float64(d.W), h/float64(d.H)))
	return Fitting{Size: Size{W: max(MinSize.W, int(w/k)), H: max(MinSize.H, int(h/k))}, Scale: k}
}

// MinSize is the smallest frame a scene draws (phones in portrait are
// about 360 CSS px wide; a frame a little narrower than the page).
var MinSize = Size{320, 240}

// FrameLayout is what a front end did with a frame: the size the scene
// was laid out for (scene px), the scale it is drawn at (CSS px per scene
// px, zoom included) and the smallest text it drew, in CSS px.
type FrameLayout struct {
	Width     int     `json:"width"`
	Height    int     `json:"height"`
	Scale     float64 `json:"scale"`
	MinTextPx float64 `json:"minTextPx"`
}

// Layout is the FrameLayout of frame f (laid out at f's size) drawn at
// scale: its smallest text times scale (0 when it draws none).
func (f Frame) Layout(scale float64) FrameLayout {
	least := 0.0
	for _, it := range f.Items {
		if t, ok := it.(Text); ok && t.S != "" && (least == 0 || t.Size < least) {
			least = t.Size
		}
	}
	return FrameLayout{Width: f.W, Height: f.H, Scale: scale, MinTextPx: least * scale}
}
