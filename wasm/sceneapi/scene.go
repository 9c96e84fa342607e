//go:build js && wasm

package sceneapi

import (
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// Scene builds the scene a URL hash names (viz.ParseHash): {hash, focus:
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
func Scene(req js.Value) (any, error) {
	s, spec, opts, err := SceneOf(req)
	if err != nil {
		return nil, err
	}
	var meaning json.RawMessage
	if v := jsvalue.Field(req, "json"); v.Type() != js.TypeBoolean || v.Bool() {
		if meaning, err = s.JSON(); err != nil {
			return nil, err
		}
	}
	focus, err := focusOf(req)
	if err != nil {
		return nil, err
	}
	report := s.ReportLook(spec.Step, viz.Look{Focus: focus, HideAnswers: jsvalue.Field(req, "hideAnswers").Truthy()})
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

// focusOf reads req.focus, a viz.Focus as JSON data; nil when absent.
func focusOf(req js.Value) (*viz.Focus, error) {
	v := jsvalue.Field(req, "focus")
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

// SceneOf builds the scene req.hash names; the spec is the hash's (its
// step may differ from the cached scene's Spec.Step).
func SceneOf(req js.Value) (*viz.Scene, viz.Spec, viz.HashOptions, error) {
	spec, opts, err := viz.ParseHash(jsvalue.Str(req, "hash"))
	if err != nil {
		return nil, spec, opts, err
	}
	s, err := Build(spec)
	return s, spec, opts, err
}

// SceneKey is spec's hash without its step: a scene holds every step,
// and so does what is kept of it (lastScene, lastResult).
func SceneKey(spec viz.Spec) string { return viz.Spec{Scene: spec.Scene, Values: spec.Values}.Hash() }

// Build returns the scene of spec, from lastScene when it was built last,
// and checks spec's step against it as viz.Build does.
func Build(spec viz.Spec) (*viz.Scene, error) {
	lastScene.Lock()
	defer lastScene.Unlock()
	key := SceneKey(spec)
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
