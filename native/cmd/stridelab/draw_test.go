package main

import (
	"bytes"
	"encoding/json"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// TestDrawWritesEveryFormat: each format comes out valid, the same bytes
// on every run, and the JSON holds the scene's meaning.
func TestDrawWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	scene := []string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "--step", "5"}
	for _, ext := range []string{"svg", "png", "gif", "json"} {
		p := filepath.Join(dir, "e."+ext)
		var stdout, stderr bytes.Buffer
		if code := run(append(scene, "-o", p), &stdout, &stderr); code != 0 {
			t.Fatalf("draw -o %s: exit %d: %s", p, code, stderr.String())
		}
		first, _ := os.ReadFile(p)
		run(append(scene, "-o", p), &stdout, &stderr)
		again, _ := os.ReadFile(p)
		if !bytes.Equal(first, again) {
			t.Errorf("%s: two runs wrote different bytes", ext)
		}
		switch ext {
		case "svg":
			if !bytes.HasPrefix(first, []byte("<svg")) && !bytes.Contains(first[:100], []byte("<svg")) {
				t.Errorf("svg: %q…", first[:60])
			}
		case "png":
			img, err := png.Decode(bytes.NewReader(first))
			if err != nil || img.Bounds().Dx() != 1280 || img.Bounds().Dy() != 720 {
				t.Errorf("png: %v, %v", err, img.Bounds())
			}
		case "gif":
			g, err := gif.DecodeAll(bytes.NewReader(first))
			if err != nil || len(g.Image) != 24 || len(g.Delay) != 24 || g.LoopCount != 0 {
				t.Fatalf("gif: %v; want the 24 steps of expand [4 1 3] → [4 2 3], looping", err)
			}
			for i, d := range g.Delay {
				if want := map[bool]int{true: 200, false: 60}[i == 23]; d != want {
					t.Errorf("gif frame %d: delay %d, want %d (the last lingers)", i, d, want)
				}
			}
		case "json":
			var m struct {
				Scene    string
				OutShape []int `json:"out_shape"`
				Cells    []struct {
					Index []int
					Reads [][2]any
				}
			}
			if err := json.Unmarshal(first, &m); err != nil || m.Scene != "expand" || len(m.Cells) != 24 || m.Cells[5].Reads[0][0] != "x" {
				t.Errorf("json: %v, %+v", err, m)
			}
		}
	}
}

// TestDrawBadInput: every bad draw is one line on stderr, a non-zero exit
// and no file.
func TestDrawBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"draw"}, "say which scene"},
		{[]string{"draw", "spiral", "-o", out}, "unknown scene \"spiral\""},
		{[]string{"draw", "expand", "--shape", "4,1,3", "-o", out}, "needs --size"},
		{[]string{"draw", "expand", "--shape", "4,x,3", "--size", "4,2,3", "-o", out}, "not an integer"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3"}, "-o FILE is required"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "5,2,3", "-o", out}, "dim 0 has size 4"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "--step", "99", "-o", out}, "step 99 is out of range"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "--step", "-1", "-o", out}, "steps count from 0"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "-o", filepath.Join(dir, "x.bmp")}, "unknown format \"bmp\""},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "-o", filepath.Join(dir, "missing", "x.svg")}, "cannot write"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "--width", "10", "-o", out}, "between 320×240"},
		{[]string{"draw", "expand", "--shape", "4,1,3", "--size", "4,2,3", "--times", "2", "-o", out}, "takes no --times"},
		{[]string{"draw", "boxing", "--shape", "8,6", "--from", "S(0)", "--to", "S(5)", "--placement", "4", "-o", out}, "splits axis 5"},
		{[]string{"draw", "program", "--src", "placement 4; x = input 8 S(0)", "--cluster", filepath.Join(dir, "nodes.json"), "-o", out}, "no preset of that name and no such file"},
		{[]string{"draw", "program", "--src", "placement 4; x = input 8 S(0)", "--cluster", "two-h100-nodes", "-o", out}, "2 links for cpu:[0, 1, 2, 3], a 1-D mesh"},
		{[]string{"draw", "program", "--src", "placement 4; x = input 8 S(0)", "--cost", "time", "-o", out}, "--cost time needs --cluster"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code == 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) {
			t.Errorf("stridelab %v: exit %d, stderr %q; want one line containing %q", c.args, code, msg, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("stridelab %v left %v behind", c.args, entries[0].Name())
			for _, e := range entries {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// TestDrawIsExport: the file `stridelab draw` writes is, byte for byte,
// what render.Encode writes of the scene its link (viz.ParseHash) names,
// which is what the playground's export buttons download.
func TestDrawIsExport(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		hash string
		args []string
	}{
		{"#/expand?shape=4,1,3&size=4,2,3&step=5", []string{"expand", "--shape", "4,1,3", "--size", "4,2,3", "--step", "5"}},
		{"#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]", []string{"placement", "--shape", "8,6", "--sbp", "S(0),P", "--placement", "[[0,1],[2,3]]"}},
	} {
		spec, _, err := viz.ParseHash(c.hash)
		if err != nil {
			t.Fatal(err)
		}
		s, err := viz.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range render.Formats {
			p := filepath.Join(dir, "scene."+f)
			var stdout, stderr bytes.Buffer
			if code := run(append(append([]string{"draw"}, c.args...), "--width", "640", "--height", "360", "-o", p), &stdout, &stderr); code != 0 {
				t.Fatalf("draw %v: exit %d: %s", c.args, code, stderr.String())
			}
			file, _ := os.ReadFile(p)
			var b bytes.Buffer
			if err := render.Encode(&b, s, f, spec.Step, viz.Size{W: 640, H: 360}); err != nil {
				t.Fatalf("Encode %s %s: %v", c.hash, f, err)
			}
			if !bytes.Equal(file, b.Bytes()) || len(file) < 100 {
				t.Errorf("%s as %s: draw wrote %d bytes, Encode %d; want the same bytes", c.hash, f, len(file), b.Len())
			}
		}
	}
}
