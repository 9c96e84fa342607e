package main

import (
	"encoding/json"
	"fmt"
	"io"
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
// from a file when it names no preset.
// The file is written by render.WriteFileAtomic, so a failure leaves
// nothing behind.
func runDraw(args []string, stdout, stderr io.Writer) error {
	synopsis := "SCENE [--shape ... the scene's flags] [--step N] [--width 1280] [--height 720] -o FILE (.svg .png .gif .json)\n\nscenes, each with its worked example and the keys it also takes:\n" + viz.KindsUsage()
	scene, args, err := leadWord(args, notFlag, usageLine("draw", synopsis),
		usagef("say which scene: stridelab draw %s", strings.Join(viz.Scenes, "|")), stderr)
	if err != nil {
		return err
	}
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
	if err := fs.parse(args); err != nil {
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
	if scene == "program" {
		if err := clusterKey(keys); err != nil {
			return err
		}
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

// clusterKey checks the program scene's cluster and cost keys as sbp
// program checks --cluster and --cost (planOptions), and puts a cluster
// read from a file in the key as its JSON: the scene model reads no
// files (viz.ParseCluster). A preset's name, or JSON, stays as given,
// and so does none.
func clusterKey(keys map[string]string) error {
	name := keys["cluster"]
	if name == viz.NoCluster { // the key's default, as a front end may spell it
		name = ""
	}
	o, err := planOptions(name, keys["cost"])
	if err != nil || o.Cluster == nil {
		return err
	}
	if _, preset := cluster.Preset(keys["cluster"]); preset || inline(keys["cluster"]) {
		return nil
	}
	b, err := json.Marshal(o.Cluster)
	if err != nil {
		return err
	}
	keys["cluster"] = string(b)
	return nil
}
