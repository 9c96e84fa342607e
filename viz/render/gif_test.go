package render

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"io"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// smallGrid is gridFrame's scene at 8×8 cells on 220×140, highlight
// moving.
func smallGrid(highlight int) viz.Frame {
	items := []viz.Item{viz.Text{X: 110, Y: 12, S: "step " + itoa(highlight), Size: 11, Color: dark, Anchor: viz.AnchorMiddle, Font: viz.FontBold}}
	for r := range 8 {
		for c := range 8 {
			cell := viz.Rect{X: 10.5 + float64(c)*25, Y: 20.5 + float64(r)*14.25, W: 25, H: 14.25, Fill: paleBl, Stroke: blue, StrokeWidth: 1}
			if r*8+c == highlight {
				cell.Fill, cell.Stroke, cell.Hatch = viz.RGB(255, 224, 178), orange, true
			}
			items = append(items, cell, viz.Text{X: cell.X + 12.5, Y: cell.Y + 11, S: itoa(r*8 + c), Size: 10, Color: dark, Anchor: viz.AnchorMiddle, Font: viz.FontMono})
		}
	}
	items = append(items, viz.Line{X1: 5, Y1: 135, X2: 215, Y2: 135, Color: glass, Width: 2, Arrow: true})
	return viz.Frame{W: 220, H: 140, Background: white, Items: items}
}

func TestGIF(t *testing.T) {
	var frames []viz.Frame
	var delays []int
	for i := range 5 {
		frames = append(frames, smallGrid(i*9))
		delays = append(delays, 10+i)
	}
	frames = append(frames, smallGrid(36)) // the same frame twice: an empty change
	delays = append(delays, 50)
	var b bytes.Buffer
	if err := GIF(&b, frames, delays); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != len(frames) {
		t.Fatalf("%d frames, want %d", len(g.Image), len(frames))
	}
	if g.LoopCount != 0 {
		t.Errorf("LoopCount %d, want 0 (forever)", g.LoopCount)
	}
	if g.Config.Width != 220 || g.Config.Height != 140 {
		t.Errorf("canvas %d×%d, want 220×140", g.Config.Width, g.Config.Height)
	}
	pal, ok := g.Config.ColorModel.(color.Palette)
	if !ok || len(pal) > 256 {
		t.Fatalf("global palette %T of %d colours, want a color.Palette of at most 256", g.Config.ColorModel, len(pal))
	}
	inPal := map[color.RGBA]bool{}
	for _, c := range pal {
		r, gg, bb, _ := c.RGBA()
		inPal[color.RGBA{uint8(r >> 8), uint8(gg >> 8), uint8(bb >> 8), 255}] = true
	}
	for _, c := range []viz.Color{white, paleBl, blue, dark, orange, viz.RGB(255, 224, 178), flatOver(glass, white)} {
		if !inPal[color.RGBA{c.R, c.G, c.B, 255}] {
			t.Errorf("flat colour %v is not in the palette", c)
		}
	}
	// Play the animation: each frame drawn over the canvas must give the
	// frame as Raster paints it, mapped exactly where its colour is in the
	// palette and to a near colour elsewhere.
	canvas := image.NewRGBA(image.Rect(0, 0, 220, 140))
	for i, m := range g.Image {
		if g.Delay[i] != delays[i] {
			t.Errorf("frame %d: delay %d, want %d", i, g.Delay[i], delays[i])
		}
		if !m.Bounds().In(canvas.Rect) || m.Bounds().Empty() {
			t.Errorf("frame %d: bounds %v, want a box inside %v", i, m.Bounds(), canvas.Rect)
		}
		if i == 0 && m.Bounds() != canvas.Rect {
			t.Errorf("frame 0: bounds %v, want the whole canvas %v", m.Bounds(), canvas.Rect)
		}
		if g.Disposal[i] != gif.DisposalNone {
			t.Errorf("frame %d: disposal %d, want none (%d)", i, g.Disposal[i], gif.DisposalNone)
		}
		draw.Draw(canvas, m.Bounds(), m, m.Bounds().Min, draw.Src)
		want := Raster(frames[i])
		exact, near := 0, 0
		for p := 0; p < len(want.Pix); p += 4 {
			w := color.RGBA{want.Pix[p], want.Pix[p+1], want.Pix[p+2], 255}
			got := color.RGBA{canvas.Pix[p], canvas.Pix[p+1], canvas.Pix[p+2], 255}
			if inPal[w] {
				if got != w {
					t.Fatalf("frame %d: pixel %d is %v, want %v, which is in the palette", i, p/4, got, w)
				}
				exact++
				continue
			}
			d := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
			if max(d(got.R, w.R), d(got.G, w.G), d(got.B, w.B)) > 48 {
				t.Fatalf("frame %d: pixel %d is %v, far from %v", i, p/4, got, w)
			}
			near++
		}
		if exact < 3*near {
			t.Errorf("frame %d: %d pixels exact, %d near; want most exact", i, exact, near)
		}
	}
	if last := g.Image[len(g.Image)-1].Bounds(); last.Dx()*last.Dy() != 1 {
		t.Errorf("an unchanged frame is %v, want 1×1", last)
	}
}

func TestGIFErrors(t *testing.T) {
	f := smallGrid(0)
	other := f
	other.W = 100
	for _, tc := range []struct {
		frames []viz.Frame
		delays []int
		kind   error
		text   string
	}{
		{nil, nil, ErrFrames, "render: gif: no frames"},
		{[]viz.Frame{f, f}, []int{1}, ErrFrames, "1 delays for 2 frames"},
		{[]viz.Frame{f}, []int{-1}, ErrFrames, "delay -1 of frame 0"},
		{[]viz.Frame{f}, []int{70000}, ErrFrames, "delay 70000 of frame 0"},
		{[]viz.Frame{f, f, other}, []int{1, 1, 1}, ErrSize, "frame 2 is 100×140 but frame 0 is 220×140"},
		{[]viz.Frame{{W: 0, H: 5}}, []int{1}, ErrSize, "frame is 0×5"},
		{[]viz.Frame{{W: 70000, H: 5}}, []int{1}, ErrSize, "at most 65535"},
	} {
		err := GIF(io.Discard, tc.frames, tc.delays)
		if !errors.Is(err, tc.kind) || err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("GIF of %d frames, delays %v: got %v, want %v saying %q", len(tc.frames), tc.delays, err, tc.kind, tc.text)
		}
	}
}

func TestGIFDeterministic(t *testing.T) {
	frames := []viz.Frame{smallGrid(1), smallGrid(2), smallGrid(30), testFrameAt(220, 140)}
	delays := []int{5, 5, 5, 5}
	var a, b bytes.Buffer
	if err := GIF(&a, frames, delays); err != nil {
		t.Fatal(err)
	}
	if err := GIF(&b, frames, delays); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two GIFs of the same frames differ")
	}
}

// testFrameAt is the test frame cut to w×h.
func testFrameAt(w, h int) viz.Frame {
	f := testFrame()
	f.W, f.H = w, h
	return f
}
