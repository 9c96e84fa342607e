package render

import (
	"image"
	"math"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestBoxCoverage paints white boxes of many sizes at fractional places
// on black and checks that the coverage adds up to their area: the fast
// path for boxes is exact, up to one rounding a pixel.
func TestBoxCoverage(t *testing.T) {
	sizes := []float64{0.25, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 55, 65}
	for _, w := range sizes {
		for _, off := range []float64{0, 0.25, 0.5, 0.8} {
			r := viz.Rect{X: 3 + off, Y: 2 + off/2, W: w, H: w / 2, Fill: white}
			m := Raster(viz.Frame{W: 80, H: 48, Background: black, Items: []viz.Item{r}})
			sum, edge := 0.0, 0
			for i := 0; i < len(m.Pix); i += 4 {
				sum += float64(m.Pix[i]) / 255
				if m.Pix[i] != 0 && m.Pix[i] != 255 {
					edge++
				}
			}
			if d := math.Abs(sum - w*w/2); d > float64(edge)*0.5/255+1e-9 {
				t.Errorf("%v×%v box at +%v: coverage adds to %.4f, want %.4f (%d edge pixels)", w, w/2, off, sum, w*w/2, edge)
			}
		}
	}
}

// TestBoxMatchesVector checks the fast path against the reference: the
// same box as a polygon through golang.org/x/image/vector.
func TestBoxMatchesVector(t *testing.T) {
	for _, b := range []box{{2, 3, 19, 11}, {2.5, 3.25, 19.75, 11.5}, {0.1, 0.9, 30.3, 2.2}, {-4, -4, 7.5, 7.5}, {5.5, 5.5, 6, 30}} {
		fast := image.NewRGBA(image.Rect(0, 0, 32, 32))
		ref := image.NewRGBA(fast.Rect)
		var p painter
		for _, m := range []*image.RGBA{fast, ref} {
			p.pix, p.stride, p.w, p.y0, p.y1 = m.Pix, m.Stride, 32, 0, 32
			p.background(black)
		}
		k := p.ink(white)
		p.pix = fast.Pix
		p.ring(b, box{}, k)
		p.pix = ref.Pix
		p.fill([][]pt{{{b.x0, b.y0}, {b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}}}, k)
		for i := range fast.Pix {
			if d := int(fast.Pix[i]) - int(ref.Pix[i]); d < -2 || d > 2 {
				t.Fatalf("box %+v: byte %d (pixel (%d, %d)) is %d, vector gives %d", b, i, i/4%32, i/4/32, fast.Pix[i], ref.Pix[i])
			}
		}
	}
}

func TestHatch(t *testing.T) {
	fill, stroke := viz.RGB(255, 224, 178), orange
	r := viz.Rect{X: 10, Y: 10, W: 40, H: 30, Fill: fill, Stroke: stroke, StrokeWidth: 1, Hatch: true}
	m := Raster(viz.Frame{W: 60, H: 50, Background: white, Items: []viz.Item{r}})
	count := map[viz.Color]int{}
	for y := 12; y < 38; y++ {
		for x := 12; x < 48; x++ {
			count[pixel(m, x, y)]++
		}
	}
	if count[fill] == 0 || count[stroke] == 0 {
		t.Errorf("hatched rect: %d pixels of the fill %v and %d of the stroke %v; want both", count[fill], fill, count[stroke], stroke)
	}
	// The lines are x+y = 6k: pixel centres on them are the stroke colour.
	for _, p := range [][2]int{{20, 21}, {25, 22}, {30, 35}} {
		if got := pixel(m, p[0], p[1]); got != stroke {
			t.Errorf("pixel %v on a hatch line is %v, want %v", p, got, stroke)
		}
	}
	// Hatching stays inside the rect.
	if got := pixel(m, 5, 6); got != white {
		t.Errorf("pixel (5, 6) outside the hatched rect is %v, want white", got)
	}
}
