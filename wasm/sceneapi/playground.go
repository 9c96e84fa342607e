//go:build js && wasm

package sceneapi

import (
	"maps"
	"strings"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// scenes lists what a page's controls offer: {} -> {version: the hash
// grammar this build writes, scenes: [{name, keys: [{name, help, rows,
// choices, needs}], example: the hash of its worked example}]}, in viz.Scenes
// order, with each scene's keys as viz.KeysOf lists them (required
// first): rows > 0 for a program's text area, choices (the default
// first) for a toggle, needs the key it is shown only beside, as viz.Key
// says.
func scenes(js.Value) (any, error) {
	type key struct {
		Name    string   `json:"name"`
		Help    string   `json:"help"`
		Rows    int      `json:"rows"`
		Choices []string `json:"choices"`
		Needs   string   `json:"needs,omitempty"`
	}
	type entry struct {
		Name    string `json:"name"`
		Keys    []key  `json:"keys"`
		Example string `json:"example"`
	}
	out := []entry{}
	for _, kind := range viz.Kinds() {
		e := entry{Name: kind.Name, Keys: []key{}, Example: kind.Example.Hash()}
		for _, k := range kind.Keys() {
			e.Keys = append(e.Keys, key{k.Name, k.Help, k.Rows, k.Choices, k.Needs})
		}
		out = append(out, e)
	}
	return map[string]any{"version": viz.HashVersion, "scenes": out}, nil
}

// Spec spells a page's fields as a URL hash and checks that they build:
// {scene, fields: {key: value}, step, embed, changed: the field just
// typed} or {command: "expand --shape 4,1,3 --size 4,2,3 --step 5"} (the
// CLI's words, as the gallery lists them) -> {hash, error, field}. hash is
// written even when the fields do not build; error is then the one line
// the CLI would print and field the key it is about (viz.Blame: the
// field the error is about, else changed), both "" when it builds. With
// check: false the fields are checked but the scene is not built (a
// program not planned): the gallery's menu spells its links that way.
func Spec(req js.Value) (any, error) {
	var sp viz.Spec
	var changed string
	if cmd := jsvalue.Str(req, "command"); cmd != "" {
		var err error
		if sp, err = viz.ParseCommand(cmd); err != nil {
			return nil, err
		}
	} else {
		sp = viz.Spec{Scene: jsvalue.Str(req, "scene"), Values: map[string]string{}}
		if f := jsvalue.Field(req, "fields"); f.Type() == js.TypeObject {
			typed := map[string]string{}
			for _, k := range viz.KeysOf(sp.Scene) {
				if v := f.Get(k.Name); v.Type() == js.TypeString {
					typed[k.Name] = strings.TrimSpace(v.String())
				}
			}
			for _, k := range viz.KeysOf(sp.Scene) {
				if v := typed[k.Name]; v != "" && k.Applies(typed) { // a cost without a cluster is no value
					sp.Values[k.Name] = v
				}
			}
		}
		if v := jsvalue.Field(req, "step"); v.Type() == js.TypeNumber {
			sp.Step = v.Int()
		}
		changed = jsvalue.Str(req, "changed")
	}
	opts := viz.HashOptions{Embed: jsvalue.Field(req, "embed").Truthy()}
	out := map[string]any{"hash": sp.HashWith(opts), "error": "", "field": ""}
	checked, err := viz.ParseSpec(sp.Scene, maps.Clone(sp.Values), sp.Step)
	if c := jsvalue.Field(req, "check"); err == nil && (c.Type() != js.TypeBoolean || c.Bool()) {
		_, err = Build(checked)
	}
	if err != nil {
		out["error"] = err.Error()
		out["field"] = viz.Blame(err, changed)
	}
	return out, nil
}
