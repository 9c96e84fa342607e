//go:build js && wasm

package jsapi

import (
	"context"
	"maps"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/viz"
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

// spec spells a page's fields as a URL hash and checks that they build:
// {scene, fields: {key: value}, step, embed, changed: the field just
// typed} or {command: "expand --shape 4,1,3 --size 4,2,3 --step 5"} (the
// CLI's words, as the gallery lists them) -> {hash, error, field}. hash is
// written even when the fields do not build; error is then the one line
// the CLI would print and field the key it is about (viz.Blame: the
// field the error is about, else changed), both "" when it builds. With
// check: false the fields are checked but the scene is not built (a
// program not planned): the gallery's menu spells its links that way.
func spec(req js.Value) (any, error) {
	var sp viz.Spec
	var changed string
	if cmd := str(req, "command"); cmd != "" {
		var err error
		if sp, err = viz.ParseCommand(cmd); err != nil {
			return nil, err
		}
	} else {
		sp = viz.Spec{Scene: str(req, "scene"), Values: map[string]string{}}
		if f := field(req, "fields"); f.Type() == js.TypeObject {
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
		if v := field(req, "step"); v.Type() == js.TypeNumber {
			sp.Step = v.Int()
		}
		changed = str(req, "changed")
	}
	opts := viz.HashOptions{Embed: field(req, "embed").Truthy()}
	out := map[string]any{"hash": sp.HashWith(opts), "error": "", "field": ""}
	checked, err := viz.ParseSpec(sp.Scene, maps.Clone(sp.Values), sp.Step)
	if c := field(req, "check"); err == nil && (c.Type() != js.TypeBoolean || c.Bool()) {
		_, err = build(checked)
	}
	if err != nil {
		out["error"] = err.Error()
		out["field"] = viz.Blame(err, changed)
	}
	return out, nil
}

// compute runs the op of the scene a hash names on arange inputs
// (results.Compute): {hash, backend: "gpu"|"cpu", hideAnswers} ->
// {backend: the backend's name, section: {Title, Lines, Table}}. The
// section says whether the result agrees with the CPU reference; with
// hideAnswers (a lesson's question is open) it says only that the values
// are hidden (results.Hidden). A result past the tab's budget rejects
// with tensor's one-line error.
//
// The results of the last scene computed are kept (lastResult): a scene's
// work is the same at every step, so stepping through it (a lesson's
// steps over one program) and the reveal of a question's answer show the
// same results at once instead of running the work again.
func compute(req js.Value) (any, error) {
	s, spec, _, err := sceneOf(req)
	if err != nil {
		return nil, err
	}
	be, err := backend(req)
	if err != nil {
		return nil, err
	}
	key := resultKey{scene: sceneKey(spec), backend: be.Name()}
	sec, ok := lastResult.get(key)
	if !ok {
		if sec, err = results.Compute(context.Background(), s, be); err != nil {
			return nil, err
		}
		lastResult.put(key, sec)
		collectSoon()
	}
	if field(req, "hideAnswers").Truthy() {
		sec = results.Hidden(sec)
	}
	return map[string]any{"backend": be.Name(), "section": sec}, nil
}

// resultKey names a computed result: the scene's hash without its step,
// and the backend it ran on.
type resultKey struct{ scene, backend string }

// resultCache keeps the section of the last result computed; runs
// counts the results computed rather than kept (what the tests read).
type resultCache struct {
	sync.Mutex
	key  resultKey
	sec  viz.Section
	full bool
	runs int
}

// lastResult is the worker's cache of its last result.
var lastResult resultCache

// get returns the section kept for key, if it is the one kept.
func (c *resultCache) get(key resultKey) (viz.Section, bool) {
	c.Lock()
	defer c.Unlock()
	return c.sec, c.full && c.key == key
}

// put keeps sec, the section just computed for key, in place of the last.
func (c *resultCache) put(key resultKey, sec viz.Section) {
	c.Lock()
	defer c.Unlock()
	c.key, c.sec, c.full = key, sec, true
	c.runs++
}

// collectSoon collects the Go heap a moment after a page's results are
// answered. The results are the last thing a page asks for after an
// edit, so the heap that edit allocated (its plan, its scenes, the
// tensors computed) is collected while the person reads them, not in
// the middle of the next edit's planning: in the browser the collector
// has no thread of its own, and a collection there (marking some 20 MiB)
// made the edit it fell in some 30 ms slower (docs/performance.md).
// Calls close together share one collection.
func collectSoon() {
	if collecting.Swap(true) {
		return
	}
	time.AfterFunc(collectAfter, func() {
		runtime.GC()
		collecting.Store(false)
	})
}

var collecting atomic.Bool

// collectAfter lets the page show the results first.
const collectAfter = 50 * time.Millisecond
