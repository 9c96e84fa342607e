package live

import (
	"math"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
)

// helpFrame lists the keys over the scene.
func helpFrame(sz viz.Size) viz.Frame {
	f := viz.Frame{W: sz.W, H: sz.H}
	// 22 px a line, closer where the frame is too short for every key.
	lineH := max(15, min(22, (float64(sz.H)-24-16)/float64(len(session.Bindings)+3)))
	h := lineH*float64(len(session.Bindings)+3) + 16
	x, y := float64(sz.W)/2-260, math.Max(12, float64(sz.H)/2-h/2)
	f.Items = append(f.Items, viz.Rect{X: x, Y: y, W: 520, H: h, Fill: viz.Color{R: 255, G: 255, B: 255, A: 245}, Stroke: viz.Ink, StrokeWidth: 1.5})
	f.Items = append(f.Items, viz.Text{X: x + 20, Y: y + 30, S: "keys (press ? again to close)", Size: 17, Color: viz.Ink, Font: viz.FontBold})
	for i, b := range session.Bindings {
		ty := y + 30 + lineH*float64(i+1) + 6
		f.Items = append(f.Items,
			viz.Text{X: x + 130, Y: ty, S: b.Key, Size: 14, Color: viz.Broadcast, Font: viz.FontMono, Anchor: viz.AnchorEnd},
			viz.Text{X: x + 148, Y: ty, S: b.Help, Size: 14, Color: viz.Ink, Font: viz.FontRegular})
	}
	ty := y + 30 + lineH*float64(len(session.Bindings)+1) + 10
	f.Items = append(f.Items, viz.Text{X: x + 20, Y: ty, S: "the arrows walk the cells as the pointer hovers them; Tab moves between fields", Size: 13, Color: viz.Muted, Font: viz.FontRegular})
	return f
}
