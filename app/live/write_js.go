package live

import (
	"errors"
	"image"
)

// errNoFiles: in the browser the frame writes no files (the page saves
// exports as downloads), so the PNG encoder stays out of its wasm.
var errNoFiles = errors.New("live: the browser's frame writes no files: take screenshots with the desktop app or stridelab draw")

func writePNG(string, image.Image) error { return errNoFiles }

func writeFile(string, []byte) error { return errNoFiles }
