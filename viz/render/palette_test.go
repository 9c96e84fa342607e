package render

import (
	"bytes"
	"image/color"
	"image/gif"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestPaletteCap checks that a frame of more flat colours than a GIF
// holds keeps 256 colours and still maps every pixel.
func TestPaletteCap(t *testing.T) {
	var items []viz.Item
	for i := range 400 {
		items = append(items, viz.Rect{X: float64(i % 20 * 10), Y: float64(i / 20 * 10), W: 10, H: 10,
			Fill: viz.RGB(uint8(i), uint8(i*7), uint8(i*13)), Stroke: dark, StrokeWidth: 0.5})
	}
	f := viz.Frame{W: 200, H: 200, Background: white, Items: items}
	var b bytes.Buffer
	if err := GIF(&b, []viz.Frame{f}, []int{0}); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Config.ColorModel.(color.Palette)); n != 256 {
		t.Errorf("palette of %d colours, want 256", n)
	}
}

// TestPaletteBlends checks that a text colour's blends with the fill it
// lies on are in the palette, between the two.
func TestPaletteBlends(t *testing.T) {
	pb := newPaletteBuilder()
	pb.add(viz.Frame{W: 100, H: 40, Background: white, Items: []viz.Item{
		viz.Rect{X: 0, Y: 0, W: 100, H: 40, Fill: paleBl},
		viz.Text{X: 50, Y: 25, S: "12", Size: 12, Color: dark, Anchor: viz.AnchorMiddle},
	}})
	pal := pb.palette()
	has := map[color.Color]bool{}
	for _, c := range pal {
		has[c] = true
	}
	for _, c := range []viz.Color{white, paleBl, dark} {
		if !has[color.RGBA{c.R, c.G, c.B, 255}] {
			t.Errorf("flat colour %v missing from %v", c, pal)
		}
	}
	mid := lerpRGB(uint32(paleBl.R)|uint32(paleBl.G)<<8|uint32(paleBl.B)<<16, uint32(dark.R)|uint32(dark.G)<<8|uint32(dark.B)<<16, 4.0/7)
	if !has[color.RGBA{uint8(mid), uint8(mid >> 8), uint8(mid >> 16), 255}] {
		t.Errorf("blend of %v and %v 4/7 of the way is missing from %v", paleBl, dark, pal)
	}
}

// TestMapper checks that the cached mapping gives the nearest colour,
// the same as a search without the cache, and palette colours exactly.
func TestMapper(t *testing.T) {
	pal := color.Palette{color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}, color.RGBA{66, 133, 244, 255}, color.RGBA{200, 200, 200, 255}}
	m := newMapper(pal)
	for i := range pal {
		if got := m.index(m.pal[i]); got != uint8(i) {
			t.Errorf("palette colour %d maps to %d", i, got)
		}
	}
	src := make([]uint8, 0, 4*512)
	for i := range 512 {
		src = append(src, uint8(i*37), uint8(i*11), uint8(i*5), 255)
	}
	dst := make([]uint8, 512)
	for range 2 { // once filling the cache, once from it
		m.mapRow(dst, src)
		for i := range dst {
			rgb := uint32(src[4*i]) | uint32(src[4*i+1])<<8 | uint32(src[4*i+2])<<16
			if want := m.nearest(rgb); dst[i] != want {
				t.Fatalf("pixel %06x maps to %d, nearest is %d", rgb, dst[i], want)
			}
		}
	}
}
