package render

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestOverMatchesImageDraw checks the one blend against image/draw's
// Over of a uniform colour through an alpha mask, for every coverage:
// within one level, exact at coverage 0 and for opaque colours at 255.
func TestOverMatchesImageDraw(t *testing.T) {
	unders := []color.RGBA{{255, 255, 255, 255}, {0, 0, 0, 255}, {66, 133, 244, 255}, {40, 20, 10, 128}, {0, 0, 0, 0}}
	for _, c := range []viz.Color{dark, orange, glass, {R: 255, G: 255, B: 255, A: 1}, {R: 10, G: 200, B: 90, A: 254}} {
		var k ink
		k.set(c)
		for _, u := range unders {
			for a := range 256 {
				dst := image.NewRGBA(image.Rect(0, 0, 1, 1))
				dst.SetRGBA(0, 0, u)
				mask := image.NewAlpha(dst.Rect)
				mask.Pix[0] = uint8(a)
				draw.DrawMask(dst, dst.Rect, image.NewUniform(color.NRGBA{c.R, c.G, c.B, c.A}), image.Point{}, mask, image.Point{}, draw.Over)
				got := []uint8{u.R, u.G, u.B, u.A}
				k.over(got, uint8(a))
				for i := range 4 {
					if d := int(got[i]) - int(dst.Pix[i]); d < -1 || d > 1 {
						t.Fatalf("%v over %v at %d: byte %d is %d, image/draw gives %d", c, u, a, i, got[i], dst.Pix[i])
					}
				}
				if a == 0 && (got[0] != u.R || got[1] != u.G || got[2] != u.B || got[3] != u.A) {
					t.Fatalf("%v over %v at coverage 0 changed the pixel to %v", c, u, got)
				}
				if a == 255 && c.A == 255 && (got[0] != c.R || got[1] != c.G || got[2] != c.B || got[3] != 255) {
					t.Fatalf("opaque %v over %v at full coverage is %v", c, u, got)
				}
			}
		}
	}
}
