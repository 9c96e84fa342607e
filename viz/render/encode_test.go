package render

import (
	"bytes"
	"errors"
	"fmt"
	"image/gif"
	"image/png"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

func encodeScene(t *testing.T) *viz.Scene {
	t.Helper()
	spec, _, err := viz.ParseHash("#/repeat?shape=3&times=2&step=4")
	if err != nil {
		t.Fatal(err)
	}
	s, err := viz.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEncode: each format is what its renderer draws of the scene.
func TestEncode(t *testing.T) {
	s := encodeScene(t)
	size := viz.Size{W: 480, H: 270}
	got := map[string][]byte{}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Encode(&b, s, f, 4, size); err != nil {
			t.Fatalf("Encode %s: %v", f, err)
		}
		got[f] = b.Bytes()
	}
	fr, _ := s.Frame(4, size)
	var svg bytes.Buffer
	if err := SVG(&svg, fr); err != nil || !bytes.Equal(svg.Bytes(), got["svg"]) {
		t.Errorf("svg: %v; Encode's bytes differ from SVG's of step 4", err)
	}
	var pngOf bytes.Buffer
	if err := PNG(&pngOf, fr); err != nil || !bytes.Equal(pngOf.Bytes(), got["png"]) {
		t.Errorf("png: %v; Encode's bytes differ from PNG's of step 4", err)
	}
	if img, err := png.Decode(bytes.NewReader(got["png"])); err != nil || img.Bounds().Dx() != size.W || img.Bounds().Dy() != size.H {
		t.Errorf("png: %v; want %v", err, size)
	}
	g, err := gif.DecodeAll(bytes.NewReader(got["gif"]))
	if err != nil || len(g.Image) != s.Steps || g.Delay[0] != gifStepDelay || g.Delay[s.Steps-1] != gifLastDelay {
		t.Errorf("gif: %v; want %d frames, delays %d … %d", err, s.Steps, gifStepDelay, gifLastDelay)
	}
	if want, _ := s.JSON(); !bytes.Equal(want, got["json"]) {
		t.Errorf("json: not the scene's JSON")
	}
}

// TestEncodeRefuses: an unknown format, a step out of range and a GIF
// past the result budget are errors, and nothing is written.
func TestEncodeRefuses(t *testing.T) {
	s := encodeScene(t)
	defer tensor.SetMaxBytes(tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 20, Source: "the test's"}))
	for _, c := range []struct {
		format string
		step   int
		kind   error
		want   string
	}{
		{"bmp", 0, ErrFormat, `render: encode: unknown format "bmp"; the formats are svg, png, gif, json`},
		{"svg", 99, nil, "step 99 is out of range"},
		{"gif", 0, tensor.ErrTooLarge, fmt.Sprintf("the animation needs %s (%d steps of 1280×720); the limit is 1.00 MiB (the test's)",
			tensor.FormatBytes(int64(s.Steps)*1280*720), s.Steps)},
	} {
		var b bytes.Buffer
		err := Encode(&b, s, c.format, c.step, viz.DefaultSize)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.kind != nil && !errors.Is(err, c.kind)) || b.Len() > 0 {
			t.Errorf("Encode %s step %d: %v (%d bytes written), want %q", c.format, c.step, err, b.Len(), c.want)
		}
	}
}
