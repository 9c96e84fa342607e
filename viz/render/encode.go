package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// Formats are the files Encode writes, by their extensions.
var Formats = []string{"svg", "png", "gif", "json"}

// GIF delays: 60 hundredths of a second a step, and 2 s on the last
// before the loop restarts.
const (
	gifStepDelay = 60
	gifLastDelay = 200
)

// Encode writes scene s as format (svg, png, gif or json) at size sz:
// svg and png draw the frame of step, gif every step, json the scene's
// meaning. Every front end exports through it (`stridelab draw`, the
// desktop app, the playground), so the same scene gives the same bytes.
//
// A GIF holds a palette index per pixel of every step before it is
// encoded, so Encode asks tensor's result budget for steps × width ×
// height bytes first: in a browser tab a long animation is refused with
// the bytes and the limit instead of running the tab out of memory. An
// unknown format is an ErrFormat error.
func Encode(w io.Writer, s *viz.Scene, format string, step int, sz viz.Size) error {
	return EncodeLook(w, s, format, step, sz, viz.Look{})
}

// EncodeLook is Encode with the frames drawn as l says (viz.Scene.FrameLook):
// a focus lit, or a lesson's answers hidden, as `stridelab draw
// --hide-answers` and the lesson pages draw a question's figure. The
// json format is the scene's meaning whatever l says.
func EncodeLook(w io.Writer, s *viz.Scene, format string, step int, sz viz.Size, l viz.Look) error {
	switch format {
	case "json":
		b, err := s.JSON()
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	case "gif":
		pixels := int64(s.Steps) * int64(max(sz.W, 0)) * int64(max(sz.H, 0))
		if err := tensor.CheckBytes("draw "+s.Spec.Scene+" as gif", "the animation", pixels,
			fmt.Sprintf("%d steps of %d×%d", s.Steps, sz.W, sz.H)); err != nil {
			return err
		}
		frames := make([]viz.Frame, s.Steps)
		delays := make([]int, s.Steps)
		for i := range frames {
			var err error
			if frames[i], err = s.FrameLook(i, sz, l); err != nil {
				return err
			}
			delays[i] = gifStepDelay
		}
		delays[len(delays)-1] = gifLastDelay
		return GIF(w, frames, delays)
	case "svg", "png":
		fr, err := s.FrameLook(step, sz, l)
		if err != nil {
			return err
		}
		if format == "svg" {
			return SVG(w, fr)
		}
		return PNG(w, fr)
	}
	return newError(ErrFormat, "encode", "unknown format %q; the formats are %s", format, strings.Join(Formats, ", "))
}
