package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// runDraw exports a scene: stridelab draw SCENE [the scene's flags]
// [--step N] [--width W] [--height H] [--hide-answers] -o FILE
// [--format svg|png|gif|json];
// the program scene also reads its src from --file, and its --cluster
// from a cluster file (clusterFile).
// The file is written by render.WriteFileAtomic, so a failure leaves
// nothing behind.
func runDraw(args []string, stdout, stderr io.Writer) error {
	synopsis := "SCENE [--shape ... the scene's flags] [--step N] [--width 1280] [--height 720] -o FILE (.svg .png .gif .json)\n\nscenes, each with its worked example and the keys it also takes:\n" + viz.KindsUsage()
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(stderr, "usage: stridelab draw %s\n", synopsis)
			return nil
		}
		return usagef("say which scene: stridelab draw %s", strings.Join(viz.Scenes, "|"))
	}
	scene := args[0]
	fs := newFlags("draw "+scene, synopsis, stderr)
	values := viz.KeyFlags(fs.FlagSet)
	var file *string
	if scene == "program" {
		file = fs.String("file", "", "read the program (the src key) from this file")
	}
	step := fs.Int("step", 0, "the animation step to draw (svg, png, json); a gif draws them all")
	width := fs.Int("width", viz.DefaultSize.W, "frame width in pixels")
	height := fs.Int("height", viz.DefaultSize.H, "frame height in pixels")
	out := fs.String("o", "", "the file to write; its extension picks the format")
	format := fs.String("format", "", "svg, png, gif or json (default: from the -o extension)")
	hide := fs.Bool("hide-answers", false, "draw the labels that would answer a lesson's question about the scene as ? (the offsets cells read, who holds what, later steps), as a lesson shows it before it is answered")
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
	if !slices.Contains(render.Formats, f) {
		return usagef("-o %q: unknown format %q; write .svg, .png, .gif or .json (or --format)", *out, f)
	}
	keys := values()
	if file != nil && *file != "" {
		src, _, err := programSource(*file, keys["src"])
		if err != nil {
			return err
		}
		keys["src"] = src
	}
	if err := clusterFile(keys); err != nil {
		return err
	}
	spec, err := viz.ParseSpec(scene, keys, *step)
	if err != nil {
		return usagef("%v", err)
	}
	s, err := viz.Build(spec)
	if err != nil {
		return err
	}
	size := viz.Size{W: *width, H: *height}
	if err := render.WriteFileAtomic(*out, func(w io.Writer) error {
		return render.EncodeLook(w, s, f, spec.Step, size, viz.Look{HideAnswers: *hide})
	}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// clusterFile reads a --cluster that is none of the key's choices (none
// and the presets) as a cluster file (cluster.Resolve, whose one line a
// bad file is) and puts its JSON in the key's place: the scene takes a
// preset or a cluster's JSON and reads no file itself, as it is built
// alike in the playground and the desktop app.
func clusterFile(keys map[string]string) error {
	v := keys["cluster"]
	if v == "" || strings.HasPrefix(strings.TrimSpace(v), "{") {
		return nil
	}
	for _, k := range viz.Keys {
		if k.Name == "cluster" && slices.Contains(k.Choices, v) {
			return nil
		}
	}
	c, err := cluster.Resolve(v, os.ReadFile)
	if err != nil {
		return err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	keys["cluster"] = string(b)
	return nil
}
