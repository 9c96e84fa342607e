package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Colours of the test frame.
var (
	white  = viz.RGB(255, 255, 255)
	dark   = viz.RGB(32, 33, 36)
	blue   = viz.RGB(66, 133, 244)
	orange = viz.RGB(251, 140, 0)
	green  = viz.RGB(52, 168, 83)
	red    = viz.RGB(219, 68, 55)
	grey   = viz.RGB(154, 160, 166)
	paleBl = viz.RGB(210, 227, 252)
	glass  = viz.Color{R: 66, G: 133, B: 244, A: 96}
)

// testFrame uses every item kind and option: filled, outlined, hatched,
// dashed and translucent rects (one over another), lines straight and
// slanted, with and without arrows and dashes, text in all three fonts
// and anchors, escaped characters and fractional coordinates.
func testFrame() viz.Frame {
	items := []viz.Item{
		viz.Text{X: 12, Y: 22, S: "Regular start <&>", Size: 16, Color: dark, Font: viz.FontRegular},
		viz.Text{X: 200, Y: 46, S: "Bold middle", Size: 16, Color: dark, Anchor: viz.AnchorMiddle, Font: viz.FontBold},
		viz.Text{X: 388, Y: 70, S: "Mono end 0123", Size: 14, Color: red, Anchor: viz.AnchorEnd, Font: viz.FontMono},
		viz.Line{X1: 200, Y1: 30, X2: 200, Y2: 74, Color: grey, Width: 1, Dash: true},
	}
	// A 4×3 grid of numbered cells, one hatched, one dashed, fractional
	// edges from 30.5 on.
	for r := range 3 {
		for c := range 4 {
			x, y := 12+float64(c)*30.5, 90+float64(r)*24.25
			cell := viz.Rect{X: x, Y: y, W: 30.5, H: 24.25, Fill: paleBl, Stroke: blue, StrokeWidth: 1}
			switch {
			case r == 1 && c == 1:
				cell.Fill, cell.Stroke, cell.Hatch = viz.RGB(255, 224, 178), orange, true
			case r == 2 && c == 3:
				cell.Fill, cell.Dash = white, true
			}
			items = append(items, cell,
				viz.Text{X: x + 15.25, Y: y + 17, S: itoa(r*4 + c), Size: 12, Color: dark, Anchor: viz.AnchorMiddle, Font: viz.FontMono})
		}
	}
	items = append(items,
		viz.Rect{X: 170, Y: 90, W: 60, H: 40, Fill: green, Stroke: dark, StrokeWidth: 2},
		viz.Rect{X: 200, Y: 110, W: 60, H: 40, Fill: glass, Stroke: red, StrokeWidth: 1.5, Dash: true},
		viz.Rect{X: 280, Y: 90, W: 100, H: 60, Stroke: orange, StrokeWidth: 1, Hatch: true},
		viz.Rect{X: 280.5, Y: 160.5, W: 100, H: 2, Fill: dark},
		viz.Line{X1: 140, Y1: 180, X2: 280, Y2: 120, Color: red, Width: 2, Arrow: true},
		viz.Line{X1: 20, Y1: 200, X2: 380, Y2: 200, Color: dark, Width: 1, Arrow: true},
		viz.Line{X1: 20, Y1: 215, X2: 380, Y2: 250, Color: blue, Width: 1.5, Arrow: true, Dash: true},
		viz.Line{X1: 390, Y1: 20, X2: 390, Y2: 250, Color: green, Width: 3},
		viz.Line{X1: 250, Y1: 240, X2: 370, Y2: 170, Color: orange, Width: 1, Dash: true},
		&viz.Text{X: 200, Y: 268, S: "pointer text, translucent", Size: 11, Color: viz.Color{R: 32, G: 33, B: 36, A: 160}, Anchor: viz.AnchorMiddle},
	)
	return viz.Frame{W: 400, H: 280, Background: white, Items: items}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./viz/render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		bad := filepath.Join(os.TempDir(), "render-got-"+filepath.Base(name)) // kept for a look after the test
		os.WriteFile(bad, got, 0o644)
		t.Errorf("%s: got %d bytes that differ from the %d of the golden file; got is in %s (go test ./viz/render -update rewrites it)", name, len(got), len(want), bad)
	}
}

func TestGoldenSVG(t *testing.T) {
	var b bytes.Buffer
	if err := SVG(&b, testFrame()); err != nil {
		t.Fatal(err)
	}
	golden(t, "frame.svg", b.Bytes())
}

func TestGoldenPNG(t *testing.T) {
	var b bytes.Buffer
	if err := PNG(&b, testFrame()); err != nil {
		t.Fatal(err)
	}
	golden(t, "frame.png", b.Bytes())
}
