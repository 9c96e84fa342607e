package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

var black = viz.RGB(0, 0, 0)

// pixel returns the colour of (x, y) as a viz.Color (premultiplied).
func pixel(m *image.RGBA, x, y int) viz.Color {
	o := m.PixOffset(x, y)
	return viz.Color{R: m.Pix[o], G: m.Pix[o+1], B: m.Pix[o+2], A: m.Pix[o+3]}
}

// flatOver is what Raster paints where c covers a pixel of colour under
// whole: c itself when opaque.
func flatOver(c, under viz.Color) viz.Color {
	var k ink
	k.set(c)
	w := k.overWord(uint32(under.R)|uint32(under.G)<<8|uint32(under.B)<<16|uint32(under.A)<<24, 255)
	return viz.Color{R: uint8(w), G: uint8(w >> 8), B: uint8(w >> 16), A: uint8(w >> 24)}
}

func TestRectInteriorIsExact(t *testing.T) {
	for _, tc := range []struct {
		r     viz.Rect
		under viz.Color
	}{
		{viz.Rect{X: 10, Y: 10, W: 20, H: 10, Fill: blue}, white},
		{viz.Rect{X: 10.3, Y: 9.6, W: 17.45, H: 10.25, Fill: orange}, white},
		{viz.Rect{X: 4.5, Y: 4.5, W: 30, H: 20, Fill: green, Stroke: dark, StrokeWidth: 1}, white},
		{viz.Rect{X: 5.25, Y: 6.75, W: 30, H: 20, Fill: red, Stroke: blue, StrokeWidth: 2.5, Dash: true}, white},
		{viz.Rect{X: 10, Y: 10, W: 20, H: 10, Fill: glass}, white},
		{viz.Rect{X: 10, Y: 10, W: 20, H: 10, Fill: glass, Stroke: dark, StrokeWidth: 1}, black},
	} {
		m := Raster(viz.Frame{W: 48, H: 36, Background: tc.under, Items: []viz.Item{tc.r}})
		want := flatOver(tc.r.Fill, tc.under)
		h := tc.r.StrokeWidth/2 + 1 // past the outline and its anti-aliased pixel
		n := 0
		for y := int(math.Ceil(tc.r.Y + h)); y < int(math.Floor(tc.r.Y+tc.r.H-h)); y++ {
			for x := int(math.Ceil(tc.r.X + h)); x < int(math.Floor(tc.r.X+tc.r.W-h)); x++ {
				if got := pixel(m, x, y); got != want {
					t.Fatalf("%+v: pixel (%d, %d) is %v, want %v", tc.r, x, y, got, want)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%+v: no interior pixels checked", tc.r)
		}
		// Outside, past the outline, the background is untouched.
		if got := pixel(m, 0, 0); got != flatOver(tc.under, black) {
			t.Errorf("%+v: pixel (0, 0) is %v, want the background %v", tc.r, got, tc.under)
		}
	}
}

func TestDashedLineHasGaps(t *testing.T) {
	for _, l := range []viz.Line{
		{X1: 10, Y1: 20.5, X2: 110, Y2: 20.5, Color: dark, Width: 1, Dash: true},
		{X1: 10, Y1: 20, X2: 110, Y2: 20, Color: dark, Width: 2, Dash: true},
		{X1: 10, Y1: 10, X2: 110, Y2: 35, Color: dark, Width: 1.5, Dash: true},
	} {
		m := Raster(viz.Frame{W: 120, H: 40, Background: white, Items: []viz.Item{l}})
		// Walk along the line and count runs of ink and of background.
		runs, prev := 0, false
		for t := 0.0; t <= 1; t += 0.002 {
			x, y := l.X1+(l.X2-l.X1)*t, l.Y1+(l.Y2-l.Y1)*t
			on := pixel(m, int(x), int(y)) != white
			if on != prev {
				runs++
				prev = on
			}
		}
		on, off := dash(l.Width)
		n := math.Hypot(l.X2-l.X1, l.Y2-l.Y1)
		if want := int(n / (on + off)); runs/2 < want-1 {
			t.Errorf("%+v: %d dashes along the line, want about %d", l, runs/2, want)
		}
	}
	solid := viz.Line{X1: 10, Y1: 20.5, X2: 110, Y2: 20.5, Color: dark, Width: 1}
	m := Raster(viz.Frame{W: 120, H: 40, Background: white, Items: []viz.Item{solid}})
	for x := 10; x < 110; x++ {
		if got := pixel(m, x, 20); got != dark {
			t.Fatalf("solid line: pixel (%d, 20) is %v, want %v", x, got, dark)
		}
	}
}

func TestArrow(t *testing.T) {
	l := viz.Line{X1: 10, Y1: 30, X2: 90, Y2: 30, Color: dark, Width: 1, Arrow: true}
	m := Raster(viz.Frame{W: 100, H: 60, Background: white, Items: []viz.Item{l}})
	// The head is 8 px long and 7.2 px wide: at its base it reaches 3
	// pixels above and below the shaft, and nothing passes the tip.
	if got := pixel(m, 83, 27); got == white {
		t.Errorf("pixel (83, 27) inside the head is white")
	}
	if got := pixel(m, 60, 27); got != white {
		t.Errorf("pixel (60, 27) beside the shaft is %v, want white", got)
	}
	for x := 91; x < 100; x++ {
		if got := pixel(m, x, 30); got != white {
			t.Errorf("pixel (%d, 30) past the tip is %v, want white", x, got)
		}
	}
}

// TestBandsAgree checks that the pixels do not depend on how many
// goroutines paint, and that Draw paints what Raster does, into a larger
// image and at an offset.
func TestBandsAgree(t *testing.T) {
	for _, f := range []viz.Frame{testFrame(), gridFrame(7)} {
		want := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
		drawFrame(want, f, 1)
		for _, workers := range []int{2, 3, 7} {
			got := image.NewRGBA(want.Rect)
			drawFrame(got, f, workers)
			if !bytes.Equal(got.Pix, want.Pix) {
				t.Errorf("%d×%d frame with %d workers: pixels differ from one worker's", f.W, f.H, workers)
			}
		}
		big := image.NewRGBA(image.Rect(-5, -7, f.W+20, f.H+30))
		sub := big.SubImage(image.Rect(3, 2, f.W+3, f.H+2)).(*image.RGBA)
		Draw(sub, f)
		for y := range f.H {
			if g, w := sub.Pix[sub.PixOffset(3, 2+y):][:4*f.W], want.Pix[want.PixOffset(0, y):][:4*f.W]; !bytes.Equal(g, w) {
				t.Fatalf("%d×%d frame drawn at (3, 2): row %d differs", f.W, f.H, y)
			}
		}
		if pixel(big, 2, 2) != (viz.Color{}) || pixel(big, f.W+3, f.H+1) != (viz.Color{}) {
			t.Errorf("%d×%d frame drawn at (3, 2) painted outside its box", f.W, f.H)
		}
	}
}

// TestDegenerate checks that items that cannot be drawn are skipped, and
// that items partly or wholly off the frame are clipped, without a panic.
func TestDegenerate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	items := []viz.Item{
		viz.Rect{X: nan, Y: 0, W: 10, H: 10, Fill: red},
		viz.Rect{X: 0, Y: 0, W: -10, H: 10, Fill: red},
		viz.Rect{X: 0, Y: 0, W: 10, H: 10, Fill: viz.Color{R: 255}},
		viz.Rect{X: -1e30, Y: -1e30, W: 2e30, H: 2e30, Stroke: red, StrokeWidth: 1, Hatch: true},
		viz.Line{X1: 0, Y1: 0, X2: inf, Y2: 5, Color: red, Width: 1},
		viz.Line{X1: 5, Y1: 5, X2: 5, Y2: 5, Color: red, Width: 1, Arrow: true},
		viz.Line{X1: -1e9, Y1: -3e8, X2: 1e9, Y2: 4e8, Color: blue, Width: 2, Dash: true},
		viz.Line{X1: 30, Y1: -100, X2: 35, Y2: 200, Color: blue, Width: 1, Arrow: true},
		viz.Text{X: 1e20, Y: 10, S: "far", Size: 10, Color: red},
		viz.Text{X: 10, Y: 10, S: "big", Size: 1e6, Color: red},
		viz.Text{X: -5, Y: 3, S: "clipped \xff\U0010ffff", Size: 12, Color: dark},
		(*viz.Rect)(nil),
		nil,
	}
	for _, size := range [][2]int{{40, 30}, {1, 1}, {0, 10}, {-3, -3}} {
		f := viz.Frame{W: size[0], H: size[1], Background: white, Items: items}
		m := Raster(f)
		if m.Rect.Dx() != max(size[0], 0) || m.Rect.Dy() != max(size[1], 0) {
			t.Errorf("Raster of a %d×%d frame is %v", size[0], size[1], m.Rect)
		}
		if size[0] <= 0 || size[1] <= 0 {
			if err := PNG(new(bytes.Buffer), f); !errors.Is(err, ErrSize) {
				t.Errorf("PNG of a %d×%d frame: got %v, want ErrSize", size[0], size[1], err)
			}
		}
	}
}

func TestPNGDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := PNG(&a, gridFrame(3)); err != nil {
		t.Fatal(err)
	}
	if err := PNG(&b, gridFrame(3)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two PNGs of one frame differ")
	}
	m, err := png.Decode(&a)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.Bounds()); got != "(0,0)-(1280,720)" {
		t.Errorf("PNG bounds %s, want (0,0)-(1280,720)", got)
	}
}

// TestConcurrent draws from several goroutines at once, and measures the
// same texts in the same faces with viz.TextWidth meanwhile (run with
// -race): the glyph cache, the faces and the painters' scratch are shared
// safely under one lock of text.
func TestConcurrent(t *testing.T) {
	want := Raster(testFrame())
	errs := make(chan error, 12)
	for i := range 12 {
		go func() {
			f := testFrame()
			if i >= 8 {
				for _, it := range f.Items {
					if txt, ok := it.(viz.Text); ok && viz.TextWidth(txt.S, txt.Font, txt.Size) <= 0 && txt.S != "" {
						errs <- fmt.Errorf("goroutine %d: %q measures nothing", i, txt.S)
						return
					}
				}
				errs <- nil
				return
			}
			if i%2 == 1 {
				f.Items = append(f.Items, viz.Text{X: 10, Y: 270, S: "ünïcödé " + itoa(i), Size: 9 + float64(i), Color: dark})
				errs <- GIF(io.Discard, []viz.Frame{f, f}, []int{1, 1})
				return
			}
			if got := Raster(f); !bytes.Equal(got.Pix, want.Pix) {
				errs <- fmt.Errorf("goroutine %d: pixels differ", i)
				return
			}
			errs <- nil
		}()
	}
	for range 12 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
