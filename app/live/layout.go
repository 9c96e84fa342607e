package live

import (
	"image"
	"image/color"

	"github.com/stridelab/stridelab/viz"
)

// Layout of the window in logical pixels: the sidebar on the left, the
// transport bar under the scene, the scene in the rest. Embedded in the
// playground's page there is neither: the page has the fields, the
// results and the transport in HTML.
const (
	sidebarW = 340
	barH     = 52
)

// sceneRect is the scene's viewport in logical pixels for a window of
// w×h logical pixels.
func sceneRect(w, h int, embed bool) image.Rectangle {
	if embed {
		return image.Rect(0, 0, w, h-embedBarH)
	}
	return image.Rect(sidebarW, 0, w, h-barH)
}

// panelBG is the window's colour around the scene.
var panelBG = viz.RGB(241, 243, 245)

func nrgba(c viz.Color) color.NRGBA { return color.NRGBA{c.R, c.G, c.B, c.A} }

// scaleRect is r in device pixels at s device pixels per logical pixel.
func scaleRect(r image.Rectangle, s float64) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*s), int(float64(r.Min.Y)*s), int(float64(r.Max.X)*s), int(float64(r.Max.Y)*s))
}

// minSize is the smallest window that fits: the sidebar, the bar and a
// scene of viz's smallest frame (320×240) natively; the scene alone
// embedded in a page.
func minSize(embed bool) (w, h int) {
	if embed {
		return 320, 240 + embedBarH
	}
	return 960, 560
}

// fitting places the scene's frame in its rect of the window: the frame
// is laid out at size and drawn k times as large from (x0, y0), in
// logical pixels, as viz.FitViewport says: at the rect's own size up to
// a slide (the scene reflows for a phone's frame rather than shrinking a
// slide), the slide-sized part of a larger rect drawn larger.
type fitting struct {
	size      viz.Size
	x0, y0, k float64
}

func (a *App) fit() fitting {
	r := sceneRect(a.opt.Width, a.opt.Height, a.opt.Embed)
	f := viz.FitViewport(float64(r.Dx()), float64(r.Dy()))
	return fitting{size: f.Size, k: f.Scale, x0: float64(r.Min.X), y0: float64(r.Min.Y)}
}

// in maps a window point to the session's viewport (before zoom and pan).
func (f fitting) in(x, y float64) (float64, float64) { return (x - f.x0) / f.k, (y - f.y0) / f.k }

// out maps a point of the session's viewport to the window.
func (f fitting) out(x, y float64) (float64, float64) { return f.x0 + f.k*x, f.y0 + f.k*y }
