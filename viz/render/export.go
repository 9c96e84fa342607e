package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// Formats are what Export writes, named as their file extensions.
var Formats = []string{"svg", "png", "gif", "json"}

// GIF delays of an exported animation, in hundredths of a second.
const (
	stepDelay = 60  // each step of the sweep
	lastDelay = 200 // the last step lingers before the loop restarts
)

// Export writes scene s in format, the bytes `stridelab draw` writes and
// the playground's export buttons download: "svg" and "png" draw step at
// size; "gif" draws every step at size, stepDelay each and the last
// lastDelay; "json" writes the scene's meaning (viz.Scene.JSON), which has
// no step or size.
//
// A GIF holds a palette index per pixel of every step before it is
// encoded, so it asks tensor's result budget for steps × width × height
// bytes first: in a browser tab a long animation is refused with the
// bytes and the limit instead of running the tab out of memory. An
// unknown format is an ErrFormat error.
func Export(w io.Writer, s *viz.Scene, format string, step int, size viz.Size) error {
	switch format {
	case "json":
		b, err := s.JSON()
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	case "gif":
		pixels := int64(s.Steps) * int64(max(size.W, 0)) * int64(max(size.H, 0))
		if err := tensor.CheckBytes("draw "+s.Spec.Scene+" as gif", "the animation", pixels,
			fmt.Sprintf("%d steps of %d×%d", s.Steps, size.W, size.H)); err != nil {
			return err
		}
		frames := make([]viz.Frame, s.Steps)
		delays := make([]int, s.Steps)
		for i := range frames {
			var err error
			if frames[i], err = s.Frame(i, size); err != nil {
				return err
			}
			delays[i] = stepDelay
		}
		delays[len(delays)-1] = lastDelay
		return GIF(w, frames, delays)
	case "svg", "png":
		fr, err := s.Frame(step, size)
		if err != nil {
			return err
		}
		if format == "svg" {
			return SVG(w, fr)
		}
		return PNG(w, fr)
	}
	return newError(ErrFormat, "export", "unknown format %q; choose %s", format, strings.Join(Formats, ", "))
}
