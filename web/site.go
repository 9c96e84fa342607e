package web

import (
	"embed"
	"errors"
	"io/fs"
)

// built is web/site, where `make web` puts the page; the folder always
// holds a placeholder (.keep), so the package builds before the page does.
//
//go:embed all:site
var built embed.FS

// ErrNotBuilt is what Embedded says of a binary built before the page.
var ErrNotBuilt = errors.New("the playground is not built: run make run")

// Embedded returns the page embedded in this binary: web/site as `make
// web` left it when the binary was built, or ErrNotBuilt when that held
// no index.html or no wasm.
func Embedded() (fs.FS, error) {
	site, err := fs.Sub(built, "site")
	if err != nil {
		return nil, err
	}
	wasm, _ := fs.Glob(site, "*.wasm")
	if _, err := fs.Stat(site, "index.html"); err != nil || len(wasm) == 0 {
		return nil, ErrNotBuilt
	}
	return site, nil
}
