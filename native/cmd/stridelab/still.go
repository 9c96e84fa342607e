package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// The first scene at once: the playground's live frame needs its wasm
// (megabytes to fetch, compile and start) before it draws, so the page
// first shows a still of the same scene, drawn here natively by the same
// renderer (GET /scene.svg, still_server.go), or, on a static host that cannot draw, one
// of the stills `serve --write` drew beforehand (scenes/index.json).

// maxStillSide bounds a still's CSS size: an 8K screen's side. The
// scene itself is laid out at most 4096 scene pixels a side (viz's
// frame limit), which FitViewport keeps to a slide's size on any screen
// this wide or tall in both directions.
const maxStillSide = 8192

// checkStillSize says what is wrong with a still's CSS size w×h, or nil.
func checkStillSize(w, h int) error {
	if w < viz.MinSize.W || h < viz.MinSize.H || w > maxStillSide || h > maxStillSide {
		return fmt.Errorf("scene.svg: a frame of %d×%d CSS px: width and height must be between %d×%d and %d×%d",
			w, h, viz.MinSize.W, viz.MinSize.H, maxStillSide, maxStillSide)
	}
	return nil
}

// still is a drawn still: the SVG and the scene's title.
type still struct {
	svg   []byte
	title string
}

// errNoStill is drawStill's answer for a lesson's link: a lesson's scene
// hides the answers while its question is open, which only the live
// frame knows, so it has no still (GET /scene.svg: 204 No Content).
var errNoStill = errors.New("scene.svg: a lesson's link has no still: its scene hides the answers until they are given, which only the live frame knows")

// drawStill draws the scene a URL hash names ("" or "#": the worked
// example of expand, as the live frame starts) at the step it names, for
// a frame of w×h CSS pixels, exactly as the live frame lays it out:
// fit := viz.FitViewport(w, h), the frame of fit.Size scene pixels drawn
// fit.Scale CSS pixels each, so the SVG's width and height are w×h and
// its viewBox fit.Size. A lesson's link (#/lesson/ID/STEP, or a scene
// with lesson=ID) is errNoStill. The scene is built under ctx
// (viz.BuildContext): a draw whose context ends stops planning.
func drawStill(ctx context.Context, hash string, w, h int) (still, error) {
	if err := checkStillSize(w, h); err != nil {
		return still{}, err
	}
	spec, _ := viz.Example("expand")
	if strings.TrimPrefix(hash, "#") != "" {
		var opts viz.HashOptions
		var err error
		if spec, opts, err = viz.ParseHash(hash); err != nil {
			// Not a scene's hash: a lesson's? (Only then are the lessons
			// loaded, which takes seconds the first time.)
			if ls, lerr := lessons.Builtin(); lerr == nil {
				if _, ok := lessons.ParseRoute(hash, ls); ok {
					return still{}, errNoStill
				}
			}
			return still{}, fmt.Errorf("scene.svg: %w", err)
		}
		if opts.Lesson != "" {
			return still{}, errNoStill
		}
	}
	s, err := viz.BuildContext(ctx, spec)
	if err != nil {
		return still{}, fmt.Errorf("scene.svg: %w", err)
	}
	fit := viz.FitViewport(float64(w), float64(h))
	f, err := s.Frame(spec.Step, fit.Size)
	if err != nil {
		return still{}, fmt.Errorf("scene.svg: %w", err)
	}
	var b bytes.Buffer
	if err := render.SVGSized(&b, f, w, h); err != nil {
		return still{}, fmt.Errorf("scene.svg: %w", err)
	}
	svg := b.Bytes()
	return still{svg: svg, title: s.Title}, nil
}

// stillSizes are the frame sizes (CSS px) the page's style sheet gives
// at the viewports a static host's stills are drawn for: a phone in
// portrait (390×844), a tablet in portrait (768×1024), a laptop
// (1280×800) and a projector (1920×1080). web/test/screens.mjs measures
// the frame at those viewports and fails when the style sheet and this
// list part.
var stillSizes = [][2]int{{370, 631}, {748, 766}, {987, 554}, {1553, 873}}

// stillIndex is scenes/index.json: the sizes drawn, and for each hash
// (the canonical one the wasm writes, with its step; "" for the page
// without one) the scene's number and title. The still of scene n at
// size i is scenes/n-WxH.svg.
type stillIndex struct {
	Sizes  [][2]int             `json:"sizes"`
	Scenes map[string]stillItem `json:"scenes"`
}

type stillItem struct {
	N     int    `json:"n"`
	Title string `json:"title"`
}

// stillGallery draws the stills of a static copy of the site: the page
// without a hash (the worked example of expand) and every gallery link
// (gallery.txt in site: name|stridelab draw's flags|step|…, the lines of
// docs/gallery/gallery.sh, spelled as the hash the gallery menu opens),
// at each of stillSizes, with scenes/index.json. The same site gives the
// same files.
func stillGallery(site fs.FS) (map[string][]byte, error) {
	ex, _ := viz.Example("expand")
	hashes := []string{ex.Hash()}
	if list, err := fs.ReadFile(site, "gallery.txt"); err == nil {
		lines := bufio.NewScanner(bytes.NewReader(list))
		for lines.Scan() {
			parts := strings.Split(lines.Text(), "|")
			if len(parts) < 3 || parts[0] == "" {
				continue
			}
			spec, err := viz.ParseCommand(parts[1] + " --step " + cmp.Or(parts[2], "0"))
			if err != nil {
				return nil, fmt.Errorf("gallery.txt: %s: %w", parts[0], err)
			}
			hashes = append(hashes, spec.Hash())
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	out := map[string][]byte{}
	idx := stillIndex{Sizes: stillSizes, Scenes: map[string]stillItem{}}
	n := 0
	for _, hash := range hashes {
		if _, ok := idx.Scenes[hash]; ok {
			continue
		}
		for _, sz := range stillSizes {
			st, err := drawStill(context.Background(), hash, sz[0], sz[1])
			if err != nil {
				return nil, err
			}
			out[fmt.Sprintf("scenes/%d-%dx%d.svg", n, sz[0], sz[1])] = st.svg
			idx.Scenes[hash] = stillItem{N: n, Title: st.title}
		}
		n++
	}
	idx.Scenes[""] = idx.Scenes[ex.Hash()]
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the hashes' & as they are written
	enc.SetIndent("", " ")
	if err := enc.Encode(idx); err != nil {
		return nil, err
	}
	out["scenes/index.json"] = b.Bytes()
	return out, nil
}
