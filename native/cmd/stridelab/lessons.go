package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/lessons/site"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// runLessons writes the lessons as a static site: stridelab lessons -o DIR
// [--from FOLDER]. DIR gets index.html, one page per lesson and, beside
// each page, a folder of its figures (SVG) and animations (GIF), drawn by
// render.EncodeLook as `stridelab draw` draws them (a question's figure
// with its answers hidden, as --hide-answers draws it). Every file is written by
// render.WriteFileAtomic, so an interrupted run leaves whole files.
func runLessons(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("lessons", "-o DIR [--from FOLDER]", stderr)
	out := fs.String("o", "", "the folder to write the site into (made if missing)")
	from := fs.String("from", "", "a folder of lesson files (*.md) to use instead of the built-in lessons")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-o DIR is required (see --help)")
	}
	var ls []*lessons.Lesson
	var err error
	if *from != "" {
		ls, err = lessons.Load(os.DirFS(filepath.Dir(*from)), filepath.Base(*from))
	} else {
		ls, err = lessons.Builtin()
	}
	if err != nil {
		return err
	}
	st, err := site.Build(ls)
	if err != nil {
		return err
	}
	for _, f := range st.Figures {
		path := filepath.Join(*out, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		sc, err := viz.Build(f.Spec)
		if err != nil {
			return err
		}
		if err := render.WriteFileAtomic(path, func(w io.Writer) error {
			return render.EncodeLook(w, sc, f.Format, f.Spec.Step, f.Size, viz.Look{HideAnswers: f.HideAnswers})
		}); err != nil {
			return err
		}
	}
	for _, p := range st.Pages {
		path := filepath.Join(*out, filepath.FromSlash(p.Path))
		if err := render.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(p.HTML); return err }); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %d lessons to %s: %d pages, %d figures (open %s)\n", len(ls), *out, len(st.Pages), len(st.Figures), filepath.Join(*out, "index.html"))
	return nil
}
