//go:build js && wasm

package jsapi

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
	"github.com/stridelab/stridelab/wasm/sceneapi"
)

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
	s, spec, _, err := sceneapi.SceneOf(req)
	if err != nil {
		return nil, err
	}
	be, err := backend(req)
	if err != nil {
		return nil, err
	}
	key := resultKey{scene: sceneapi.SceneKey(spec), backend: be.Name()}
	sec, ok := lastResult.get(key)
	if !ok {
		if sec, err = results.Compute(context.Background(), s, be); err != nil {
			return nil, err
		}
		lastResult.put(key, sec)
		collectSoon()
	}
	if jsvalue.Field(req, "hideAnswers").Truthy() {
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
