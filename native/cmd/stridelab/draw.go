package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// drawFormats are the files `stridelab draw` writes, by extension.
var drawFormats = []string{"svg", "png", "gif", "json"}

// runDraw exports a scene: stridelab draw SCENE [the scene's flags]
// [--step N] [--width W] [--height H] -o FILE [--format svg|png|gif|json].
// The file is written to a temporary name beside it and renamed, so a
// failure leaves nothing behind.
func runDraw(args []string, stdout, stderr io.Writer) error {
	synopsis := "SCENE [--shape ... the scene's flags] [--step N] [--width 1280] [--height 720] -o FILE (.svg .png .gif .json)\n\nscenes: " + strings.Join(viz.Scenes, ", ")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(stderr, "usage: stridelab draw %s\n", synopsis)
			return nil
		}
		return usagef("say which scene: stridelab draw %s", strings.Join(viz.Scenes, "|"))
	}
	scene := args[0]
	fs := newFlags("draw "+scene, synopsis, stderr)
	values := map[string]*string{}
	for _, k := range viz.Keys {
		values[k.Name] = fs.String(k.Name, "", k.Help)
	}
	step := fs.Int("step", 0, "the animation step to draw (svg, png, json); a gif draws them all")
	width := fs.Int("width", viz.DefaultSize.W, "frame width in pixels")
	height := fs.Int("height", viz.DefaultSize.H, "frame height in pixels")
	out := fs.String("o", "", "the file to write; its extension picks the format")
	format := fs.String("format", "", "svg, png, gif or json (default: from the -o extension)")
	if err := fs.parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-o FILE is required (see --help)")
	}
	f := *format
	if f == "" {
		f = strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	}
	if !slices.Contains(drawFormats, f) {
		return usagef("-o %q: unknown format %q; write .svg, .png, .gif or .json (or --format)", *out, f)
	}
	given := map[string]string{}
	for k, v := range values {
		given[k] = *v
	}
	spec, err := viz.ParseSpec(scene, given, *step)
	if err != nil {
		return usagef("%v", err)
	}
	s, err := viz.Build(spec)
	if err != nil {
		return err
	}
	size := viz.Size{W: *width, H: *height}
	return writeAtomically(*out, func(w io.Writer) error { return exportScene(w, s, f, spec.Step, size) }, stdout)
}

// exportScene writes scene s in format f (svg, png, gif or json): a frame
// of step at size, every step as an animation, or the scene's meaning.
// `stridelab draw` and `stridelab lessons` both write through it, so a
// lesson's figure is the bytes the draw command in its caption writes.
func exportScene(w io.Writer, s *viz.Scene, f string, step int, size viz.Size) error {
	switch f {
	case "json":
		b, err := s.JSON()
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	case "gif":
		frames := make([]viz.Frame, s.Steps)
		delays := make([]int, s.Steps)
		for i := range frames {
			var err error
			if frames[i], err = s.Frame(i, size); err != nil {
				return err
			}
			delays[i] = 60
		}
		delays[len(delays)-1] = 200 // linger on the last frame before the loop restarts
		return render.GIF(w, frames, delays)
	}
	fr, err := s.Frame(step, size)
	if err != nil {
		return err
	}
	if f == "svg" {
		return render.SVG(w, fr)
	}
	return render.PNG(w, fr)
}

// writeAtomically writes through fill into a temporary file beside path
// and renames it over path only when fill succeeded.
func writeAtomically(path string, fill func(io.Writer) error, stdout io.Writer) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes files only their owner reads
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}
