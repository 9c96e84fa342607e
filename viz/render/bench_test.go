package render

import (
	"io"
	"strconv"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// gridFrame is the frame of the performance goal: 1280×720, a 64×64 grid
// of outlined cells, each numbered 0 to 4095 in FontMono 9 px (one to
// four digits), with about a hundred more labels and lines around it.
// The cell numbered highlight is hatched and outlined in another colour.
func gridFrame(highlight int) viz.Frame {
	const (
		n      = 64
		x0, y0 = 40.0, 30.0
		cw, ch = 18.75, 10.5 // 1200×672 in all: fractional edges on purpose
	)
	items := make([]viz.Item, 0, 2*n*n+128)
	items = append(items,
		viz.Text{X: 640, Y: 20, S: "expand [64, 1] -> [64, 64]", Size: 14, Color: viz.RGB(32, 33, 36), Anchor: viz.AnchorMiddle, Font: viz.FontBold})
	fill, stroke, text := viz.RGB(210, 227, 252), viz.RGB(66, 133, 244), viz.RGB(32, 33, 36)
	for r := range n {
		for c := range n {
			i := r*n + c
			cell := viz.Rect{X: x0 + float64(c)*cw, Y: y0 + float64(r)*ch, W: cw, H: ch, Fill: fill, Stroke: stroke, StrokeWidth: 1}
			if i == highlight {
				cell.Fill, cell.Stroke, cell.Hatch = viz.RGB(255, 224, 178), viz.RGB(251, 140, 0), true
			}
			items = append(items, cell, viz.Text{X: cell.X + cw/2, Y: cell.Y + 8, S: strconv.Itoa(i),
				Size: 9, Color: text, Anchor: viz.AnchorMiddle, Font: viz.FontMono})
		}
	}
	for k := 0; k < n; k += 2 {
		items = append(items,
			viz.Text{X: x0 - 4, Y: y0 + float64(k)*ch + 8, S: strconv.Itoa(k), Size: 9, Color: text, Anchor: viz.AnchorEnd, Font: viz.FontMono},
			viz.Text{X: x0 + float64(k)*cw + cw/2, Y: y0 + n*ch + 12, S: strconv.Itoa(k), Size: 9, Color: text, Anchor: viz.AnchorMiddle})
	}
	for k := range 10 {
		y := y0 + float64(k*6)*ch
		items = append(items,
			viz.Line{X1: 1250, Y1: y, X2: 1270, Y2: y, Color: stroke, Width: 1},
			viz.Line{X1: 1260, Y1: 30, X2: 1240 - float64(k)*100, Y2: 700, Color: viz.RGB(219, 68, 55), Width: 1.5, Arrow: true, Dash: k%2 == 1},
			viz.Line{X1: 20, Y1: y, X2: 36, Y2: y + 5, Color: viz.RGB(154, 160, 166), Width: 1, Arrow: true})
	}
	return viz.Frame{W: 1280, H: 720, Background: viz.RGB(255, 255, 255), Items: items}
}

func BenchmarkRaster64x64Expand(b *testing.B) {
	f := gridFrame(100)
	Raster(f)
	b.ReportAllocs()
	for b.Loop() {
		Raster(f)
	}
}

// BenchmarkDraw64x64Expand is BenchmarkRaster64x64Expand painting into
// one image over and over: the painting without the allocation of a new
// 3.5 MiB image, whose first touch of fresh pages costs this VM as much.
func BenchmarkDraw64x64Expand(b *testing.B) {
	f := gridFrame(100)
	dst := Raster(f)
	b.ReportAllocs()
	for b.Loop() {
		Draw(dst, f)
	}
}

func BenchmarkGIF60Frames(b *testing.B) {
	frames := make([]viz.Frame, 60)
	delays := make([]int, 60)
	for i := range frames {
		frames[i], delays[i] = gridFrame(i*67), 10
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := GIF(io.Discard, frames, delays); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSVG64x64Expand(b *testing.B) {
	f := gridFrame(100)
	b.ReportAllocs()
	for b.Loop() {
		if err := SVG(io.Discard, f); err != nil {
			b.Fatal(err)
		}
	}
}
