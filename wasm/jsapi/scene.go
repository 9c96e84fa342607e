//go:build js && wasm

package jsapi

import (
	"bytes"
	"encoding/json"
	"sync"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// scene builds the scene a URL hash names (viz.ParseHash): {hash} ->
// {spec: the hash as viz writes it, embed, lesson, title, steps, report:
// the results panel of the hash's step as text (viz.Scene.Report),
// sections: the same as data ([{Title, Lines, Table}]), command: the
// stridelab draw line that draws it, json: the scene's meaning}.
func scene(req js.Value) (any, error) {
	s, opts, err := sceneOf(req)
	if err != nil {
		return nil, err
	}
	meaning, err := s.JSON()
	if err != nil {
		return nil, err
	}
	report := s.Report(s.Spec.Step, nil)
	return map[string]any{
		"spec":     s.Spec.HashWith(opts),
		"embed":    opts.Embed,
		"lesson":   opts.Lesson,
		"title":    s.Title,
		"steps":    s.Steps,
		"report":   report.String(),
		"sections": report.Sections,
		"command":  "stridelab draw " + s.Spec.String(),
		"json":     json.RawMessage(meaning),
	}, nil
}

// export writes the scene a hash names as render.Encode does, the bytes
// `stridelab draw` writes: {hash, format: "svg"|"png"|"gif"|"json",
// step (default the hash's), width, height (default 1280×720)} ->
// Uint8Array.
func export(req js.Value) (any, error) {
	s, _, err := sceneOf(req)
	if err != nil {
		return nil, err
	}
	step := s.Spec.Step
	if v := field(req, "step"); v.Type() == js.TypeNumber {
		step = v.Int()
	}
	size := viz.DefaultSize
	if v := field(req, "width"); v.Type() == js.TypeNumber {
		size.W = v.Int()
	}
	if v := field(req, "height"); v.Type() == js.TypeNumber {
		size.H = v.Int()
	}
	var b bytes.Buffer
	if err := render.Encode(&b, s, str(req, "format"), step, size); err != nil {
		return nil, err
	}
	arr := js.Global().Get("Uint8Array").New(b.Len())
	js.CopyBytesToJS(arr, b.Bytes())
	return arr, nil
}

// lastScene keeps the scene built last, so that a page's scene call and
// the export calls after it build it once.
var lastScene struct {
	sync.Mutex
	hash  string
	scene *viz.Scene
}

// sceneOf builds the scene req.hash names.
func sceneOf(req js.Value) (*viz.Scene, viz.HashOptions, error) {
	spec, opts, err := viz.ParseHash(str(req, "hash"))
	if err != nil {
		return nil, opts, err
	}
	lastScene.Lock()
	defer lastScene.Unlock()
	if h := spec.Hash(); lastScene.scene == nil || lastScene.hash != h {
		s, err := viz.Build(spec)
		if err != nil {
			return nil, opts, err
		}
		lastScene.hash, lastScene.scene = h, s
	}
	return lastScene.scene, opts, nil
}
