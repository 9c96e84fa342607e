//go:build !js

package live

import (
	"image"
	"image/png"
	"io"

	"github.com/stridelab/stridelab/viz/render"
)

// writePNG writes a screenshot to path, whole or not at all.
func writePNG(path string, img image.Image) error {
	return render.WriteFileAtomic(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// writeFile writes a script's file (its state, say) to path, whole or
// not at all.
func writeFile(path string, b []byte) error {
	return render.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}
