//go:build js && wasm

package jsapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// scene builds the scene a URL hash names (viz.ParseHash): {hash, focus:
// what the pointer is on or pinned ({kind, operand, index, offset, rank},
// as the frame's state names it), optional; hideAnswers: true while a
// lesson's question is open, so that the report hides what would answer
// it (viz.Scene.ReportLook); json: false leaves the scene's meaning out
// (the playground's page never reads it, and a program's is some 50 KB
// of JSON to write and parse on every edit)} ->
// {spec: the hash as viz writes it, scene, fields: its keys' values,
// shown: the values of the keys a page shows laid out (a program one
// statement a line, viz.ProgramLines), step, embed, lesson, title, steps, report: the results panel of the hash's
// step and the focus as text (viz.Scene.Report), sections: the same as data ([{Title,
// Lines, Table}]), command: the stridelab draw line that draws it, json:
// the scene's meaning}.
func scene(req js.Value) (any, error) {
	s, spec, opts, err := sceneOf(req)
	if err != nil {
		return nil, err
	}
	var meaning json.RawMessage
	if v := field(req, "json"); v.Type() != js.TypeBoolean || v.Bool() {
		if meaning, err = s.JSON(); err != nil {
			return nil, err
		}
	}
	focus, err := focusOf(req)
	if err != nil {
		return nil, err
	}
	report := s.ReportLook(spec.Step, viz.Look{Focus: focus, HideAnswers: field(req, "hideAnswers").Truthy()})
	shown := map[string]string{}
	for _, k := range viz.KeysOf(spec.Scene) {
		if v, ok := spec.Values[k.Name]; ok && k.Rows > 0 {
			shown[k.Name] = viz.ProgramLines(v)
		}
	}
	out := map[string]any{
		"spec":     spec.HashWith(opts),
		"scene":    spec.Scene,
		"fields":   spec.Values,
		"shown":    shown,
		"step":     spec.Step,
		"embed":    opts.Embed,
		"lesson":   opts.Lesson,
		"title":    s.Title,
		"steps":    s.Steps,
		"report":   report.String(),
		"sections": report.Sections,
		"command":  "stridelab draw " + spec.String(),
	}
	if meaning != nil {
		out["json"] = meaning
	}
	return out, nil
}

// export writes the scene a hash names as render.Encode does, the bytes
// `stridelab draw` writes: {hash, format: "svg"|"png"|"gif"|"json",
// step (default the hash's), width, height (default 1280×720)} ->
// Uint8Array.
func export(req js.Value) (any, error) {
	s, spec, _, err := sceneOf(req)
	if err != nil {
		return nil, err
	}
	step := spec.Step
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

// focusOf reads req.focus, a viz.Focus as JSON data; nil when absent.
func focusOf(req js.Value) (*viz.Focus, error) {
	v := field(req, "focus")
	if v.Type() != js.TypeObject {
		return nil, nil
	}
	var f viz.Focus
	if err := jsvalue.Decode(v, &f); err != nil {
		return nil, fmt.Errorf("focus: %w", err)
	}
	return &f, nil
}

// lastScene keeps the scene built last, so that a page's scene call and
// the export and compute calls after it build it once. It is keyed by the
// hash without its step: a scene holds every step, so moving through the
// animation builds nothing. The frame's session builds the same scene
// for itself; a program's plan is made once for both (viz.Build keeps
// the last few).
var lastScene struct {
	sync.Mutex
	hash  string
	scene *viz.Scene
}

// sceneOf builds the scene req.hash names; the spec is the hash's (its
// step may differ from the cached scene's Spec.Step).
func sceneOf(req js.Value) (*viz.Scene, viz.Spec, viz.HashOptions, error) {
	spec, opts, err := viz.ParseHash(str(req, "hash"))
	if err != nil {
		return nil, spec, opts, err
	}
	s, err := build(spec)
	return s, spec, opts, err
}

// sceneKey is spec's hash without its step: a scene holds every step,
// and so does what is kept of it (lastScene, lastResult).
func sceneKey(spec viz.Spec) string { return viz.Spec{Scene: spec.Scene, Values: spec.Values}.Hash() }

// build returns the scene of spec, from lastScene when it was built last,
// and checks spec's step against it as viz.Build does.
func build(spec viz.Spec) (*viz.Scene, error) {
	lastScene.Lock()
	defer lastScene.Unlock()
	key := sceneKey(spec)
	if lastScene.scene == nil || lastScene.hash != key {
		s, err := viz.Build(viz.Spec{Scene: spec.Scene, Values: spec.Values})
		if err != nil {
			return nil, err
		}
		lastScene.hash, lastScene.scene = key, s
	}
	if s := lastScene.scene; spec.Step >= s.Steps {
		return nil, fmt.Errorf("viz: %s: step %d is out of range: the scene has steps 0 to %d", spec.Scene, spec.Step, s.Steps-1)
	}
	return lastScene.scene, nil
}
