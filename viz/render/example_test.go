package render_test

import (
	"bytes"
	"fmt"
	"image/gif"
	"os"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// cell is a one-cell frame: a numbered, outlined square and a caption.
func cell(fill viz.Color) viz.Frame {
	ink := viz.RGB(32, 33, 36)
	return viz.Frame{W: 120, H: 40, Background: viz.RGB(255, 255, 255), Items: []viz.Item{
		viz.Rect{X: 10.5, Y: 10.5, W: 20, H: 20, Fill: fill, Stroke: ink, StrokeWidth: 1},
		viz.Text{X: 20.5, Y: 24, S: "7", Size: 11, Color: ink, Anchor: viz.AnchorMiddle, Font: viz.FontMono},
		viz.Text{X: 40, Y: 24, S: "a < b", Size: 12, Color: ink},
	}}
}

func ExampleSVG() {
	if err := render.SVG(os.Stdout, cell(viz.RGB(66, 133, 244))); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="120" height="40" viewBox="0 0 120 40">
	// <rect width="120" height="40" fill="#ffffff"/>
	// <rect x="10.5" y="10.5" width="20" height="20" fill="#4285f4" stroke="#202124" stroke-width="1"/>
	// <text x="20.5" y="24" font-family="Go Mono, monospace" font-size="11" fill="#202124" text-anchor="middle">7</text>
	// <text x="40" y="24" font-family="Go, sans-serif" font-size="12" fill="#202124">a &lt; b</text>
	// </svg>
}

func ExampleRaster() {
	m := render.Raster(cell(viz.RGB(66, 133, 244)))
	// Inside the cell its fill, exactly; on the outline (x = 10.5, a
	// 1 px stroke from 10 to 11) the stroke colour; outside, white.
	fmt.Println(m.Bounds(), m.RGBAAt(13, 13), m.RGBAAt(10, 20), m.RGBAAt(5, 5))
	// Output: (0,0)-(120,40) {66 133 244 255} {32 33 36 255} {255 255 255 255}
}

func ExampleGIF() {
	frames := []viz.Frame{cell(viz.RGB(66, 133, 244)), cell(viz.RGB(251, 140, 0))}
	var b bytes.Buffer
	if err := render.GIF(&b, frames, []int{50, 50}); err != nil {
		fmt.Println(err)
		return
	}
	g, err := gif.DecodeAll(&b)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The second frame holds only the cell, whose fill changed.
	fmt.Println(len(g.Image), g.Delay, g.LoopCount, g.Image[0].Bounds(), g.Image[1].Bounds())
	// Output: 2 [50 50] 0 (0,0)-(120,40) (11,11)-(30,30)
}
