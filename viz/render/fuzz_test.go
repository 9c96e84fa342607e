package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// FuzzFrame draws frames of one rect, one line and one text with any
// numbers and flags: Raster must not panic and must paint only its
// frame, and SVG must either refuse with ErrNumber or write a document
// that parses.
func FuzzFrame(f *testing.F) {
	f.Add(10.0, 10.0, 20.0, 12.0, 1.0, 14.0, uint8(0xff), "0123")
	f.Add(0.5, -3.25, 1e9, 0.1, 40.0, 0.5, uint8(0x15), "<&>\"'")
	f.Add(-1e300, 1e300, 3.0, -2.0, -1.0, 1e5, uint8(0x2a), "\xff\xfe")
	f.Add(31.9, 5.0, 0.0, 7.0, 0.01, 9.0, uint8(0x07), "  spaced  ")
	f.Fuzz(func(t *testing.T, x, y, w, h, width, size float64, flags uint8, s string) {
		c := viz.Color{R: flags, G: 255 - flags, B: flags * 7, A: flags | 0x0f}
		fr := viz.Frame{W: 48, H: 32, Background: white, Items: []viz.Item{
			viz.Rect{X: x, Y: y, W: w, H: h, Fill: c, Stroke: dark, StrokeWidth: width, Hatch: flags&1 != 0, Dash: flags&2 != 0},
			viz.Line{X1: x, Y1: y, X2: x + w, Y2: y + h, Color: c, Width: width, Arrow: flags&4 != 0, Dash: flags&8 != 0},
			viz.Text{X: x, Y: y, S: s, Size: size, Color: c, Anchor: viz.Anchor(flags % 4), Font: viz.Font(flags / 4 % 4)},
		}}
		m := Raster(fr)
		if m.Rect.Dx() != 48 || m.Rect.Dy() != 32 {
			t.Fatalf("Raster bounds %v", m.Rect)
		}
		var b bytes.Buffer
		err := SVG(&b, fr)
		if err != nil {
			if !errors.Is(err, ErrNumber) {
				t.Fatalf("SVG: %v, want nil or ErrNumber", err)
			}
			return
		}
		d := xml.NewDecoder(&b)
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("the SVG does not parse: %v\n%s", err, b.String())
			}
		}
	})
}
