package render

import (
	"image"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// inked returns the columns and rows of pixels that differ from bg.
func inked(m *image.RGBA, bg viz.Color) (xs, ys []int) {
	seenX, seenY := map[int]bool{}, map[int]bool{}
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
			if pixel(m, x, y) != bg {
				if !seenX[x] {
					seenX[x] = true
					xs = append(xs, x)
				}
				if !seenY[y] {
					seenY[y] = true
					ys = append(ys, y)
				}
			}
		}
	}
	return xs, ys
}

func TestTextAnchor(t *testing.T) {
	for _, f := range []viz.Font{viz.FontRegular, viz.FontBold, viz.FontMono} {
		for _, a := range []viz.Anchor{viz.AnchorStart, viz.AnchorMiddle, viz.AnchorEnd} {
			txt := viz.Text{X: 100.5, Y: 30, S: "Hello 123", Size: 14, Color: dark, Anchor: a, Font: f}
			m := Raster(viz.Frame{W: 200, H: 48, Background: white, Items: []viz.Item{txt}})
			w := viz.TextWidth(txt.S, f, txt.Size)
			lo := txt.X - w*AnchorShift(a)
			xs, ys := inked(m, white)
			if len(xs) == 0 {
				t.Fatalf("font %d anchor %d: nothing drawn", f, a)
			}
			minX, maxX := xs[0], xs[0]
			for _, x := range xs {
				minX, maxX = min(minX, x), max(maxX, x)
			}
			// Glyphs may overhang their advance by a pixel or two.
			if float64(minX) < lo-2 || float64(maxX) > lo+w+2 {
				t.Errorf("font %d anchor %d: ink spans x %d..%d, want within [%.1f, %.1f]", f, a, minX, maxX, lo, lo+w)
			}
			if float64(minX) > lo+3 || float64(maxX) < lo+w-3 {
				t.Errorf("font %d anchor %d: ink spans x %d..%d, want it to fill most of [%.1f, %.1f]", f, a, minX, maxX, lo, lo+w)
			}
			for _, y := range ys {
				if y > 30+4 || y < 30-int(viz.Ascent(f, txt.Size))-2 {
					t.Errorf("font %d anchor %d: ink on row %d, far from the baseline 30", f, a, y)
				}
			}
		}
	}
}

// TestTextWidthMatchesViz checks the cached layout against viz.TextWidth,
// kerned pairs and runes beyond ASCII included.
func TestTextWidthMatchesViz(t *testing.T) {
	for _, s := range []string{"", "0", "4095", "AVAWAY To Ty", "expand [64, 1] → [64, 64]", "héllo wörld ×÷", "<&>"} {
		for _, f := range []viz.Font{viz.FontRegular, viz.FontBold, viz.FontMono} {
			for _, size := range []float64{9, 12.5, 16} {
				g := lockFace(f, size)
				got := float64(g.width(s)) / 64
				unlockFace()
				if want := viz.TextWidth(s, f, size); got != want {
					t.Errorf("width of %q in font %d at %v: got %v, viz.TextWidth says %v", s, f, size, got, want)
				}
			}
		}
	}
}
