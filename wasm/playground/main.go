//go:build js && wasm

// Command playground is the playground's scene frame: the desktop app's
// interactive renderer (app/live, Ebitengine on WebGL) without its
// sidebar, in a same-origin iframe of the playground's page, and the
// JavaScript API for scenes (wasm/sceneapi) beside it in one binary, so the page loads
// one wasm. It starts on its own location's hash (frame.html#/expand?…)
// and adds, on globalThis.stridelab.frame:
//
//	frame.show(hash)   // show a link's state: → Promise of the State
//	frame.act(key)     // press a key of session.Bindings ("space", ".", "right", "enter", "+", …)
//	frame.state()      // → the State now (scene, spec, step, hover, pin, error, lesson, …)
//	frame.lesson(id, step) // open a built-in lesson at a step (1-based): → Promise of the State
//	frame.click(focus) // click a cell as the pointer would ({kind, operand, index, offset, rank}):
//	                   // pins it, or answers the open lesson's question; → Promise of the State
//	frame.hover(focus) // hover a cell as the pointer would (lit, and the page's results follow it)
//	                   // until the frame's next tick reads the real pointer; → Promise of the State
//	frame.locate(focus) // → Promise of {x, y}: where that cell is drawn, in the frame's CSS pixels
//	                    // (tests move the real pointer there)
//	frame.texts()      // → Promise of the strings the scene draws now (every text of its display
//	                   // list, live.App.Frame, in drawing order): what a canvas cannot tell a test,
//	                   // e.g. that a lesson's open question draws its answers as "?"
//
// and posts {type: "stridelab-state", state} to the parent window
// whenever what it shows changes, so the page mirrors it in its URL and
// its results. globalThis.stridelabFirstDraw is the time (performance.now)
// its first scene was drawn.
package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/stridelab/stridelab/app/live"
	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
	"github.com/stridelab/stridelab/wasm/sceneapi"
)

// gcPercent is the frame's GOGC. In the browser the Go runtime has one
// thread: a collection marks the live heap (some 18 MiB here) on the
// page's own, and its assists charge the code that allocates, so a
// collection that falls inside an edit makes it some 30 ms slower.
// Planning a program on a 2×2 mesh allocates some 13 MB an edit. With
// the heap collected after each edit's results (jsapi's collectSoon), an
// edit of the gallery's 2-D mesh program showed its scene in a median
// of 45 ms at 200 against 62 at 100 and 74 at 100 without those
// collections (10 edits each, Chromium on the 2-core VM under a load of
// 2-7), the runtime holding 58 MiB against 52 and 62 (docs/performance.md).
const gcPercent = 200

func main() {
	debug.SetGCPercent(gcPercent)
	api := js.Global().Get("Object").New()
	sceneapi.RegisterScenes(api)
	js.Global().Set("stridelab", api)

	spec, opts, err := viz.ParseHash(js.Global().Get("location").Get("hash").String())
	if err != nil || spec.Scene == "" {
		spec, _ = viz.Example("expand")
	}
	var last session.State // what the frame shows, for frame.state()
	o := live.Options{Spec: spec, Embed: true, Paused: opts.Embed, Export: exportOnPage,
		OnState: func(st session.State) { last = st; post(st) },
		// The frame's page holds back animation frames while the loop
		// sleeps (web/frame.js).
		OnSleep: func(asleep bool) { js.Global().Call("stridelabSleep", asleep) },
		OnFirstDraw: func() {
			// When the first scene was drawn, in the page's clock: the
			// playground's time-to-first-scene budget reads it.
			js.Global().Set("stridelabFirstDraw", js.Global().Get("performance").Call("now"))
		}}
	app, err := live.New(o)
	if err != nil { // a link that does not build starts on the worked example
		var ok bool
		if o.Spec, ok = viz.Example(spec.Scene); !ok {
			o.Spec, _ = viz.Example("expand")
		}
		if app, err = live.New(o); err != nil {
			panic(err)
		}
	}
	frame := js.Global().Get("Object").New()
	frame.Set("show", js.FuncOf(func(_ js.Value, args []js.Value) any {
		hash := ""
		if len(args) > 0 {
			hash = args[0].String()
		}
		spec, opts, err := viz.ParseHash(hash)
		if err != nil {
			return jsvalue.Rejected(err)
		}
		return jsvalue.Promise(func(r jsvalue.Resolvers) {
			app.Post(func(a *live.App) {
				a.Session().Show(spec)
				if opts.Embed {
					a.Session().Pause()
				}
				r.Resolve(a.Session().State())
			})
		})
	}))
	frame.Set("act", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return jsvalue.Error(errors.New("stridelab.frame.act: name a key"))
		}
		key := args[0].String()
		if _, ok := session.BindingFor(key); !ok {
			return jsvalue.Error(fmt.Errorf("stridelab.frame.act: no key %q", key))
		}
		app.Post(func(a *live.App) { _ = a.Act(key) })
		return nil
	}))
	frame.Set("lesson", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 {
			return jsvalue.Rejected(errors.New("stridelab.frame.lesson: give a lesson's id and a step"))
		}
		id, step := args[0].String(), args[1].Int()
		return jsvalue.Promise(func(r jsvalue.Resolvers) {
			app.Post(func(a *live.App) {
				if err := a.OpenLesson(id, step); err != nil {
					r.Reject(err)
					return
				}
				r.Resolve(a.Session().State())
			})
		})
	}))
	frame.Set("click", onFocus(app, "click", func(a *live.App, f viz.Focus) (any, error) {
		a.Session().Click(&f)
		return a.Session().State(), nil
	}))
	frame.Set("hover", onFocus(app, "hover", func(a *live.App, f viz.Focus) (any, error) {
		a.Session().Hover(&f)
		return a.Session().State(), nil
	}))
	frame.Set("locate", onFocus(app, "locate", func(a *live.App, f viz.Focus) (any, error) {
		x, y, err := a.Locate(f)
		return map[string]float64{"x": x, "y": y}, err
	}))
	frame.Set("texts", js.FuncOf(func(js.Value, []js.Value) any {
		return jsvalue.Promise(func(r jsvalue.Resolvers) {
			app.Post(func(a *live.App) {
				f, err := a.Frame()
				if err != nil {
					r.Reject(err)
					return
				}
				out := []string{}
				for _, it := range f.Items {
					if t, ok := it.(viz.Text); ok {
						out = append(out, t.S)
					}
				}
				r.Resolve(out)
			})
		})
	}))
	frame.Set("state", js.FuncOf(func(js.Value, []js.Value) any { return stateJS(last) }))
	api.Set("frame", frame)
	if ready := js.Global().Get("stridelabFrameReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	if err := live.RunApp(app); err != nil {
		js.Global().Get("console").Call("error", "stridelab frame: "+err.Error())
	}
}

// post tells the page what the frame shows.
func post(st session.State) {
	parent := js.Global().Get("parent")
	if parent.IsUndefined() || parent.Equal(js.Global()) {
		return
	}
	msg := js.Global().Get("Object").New()
	msg.Set("type", "stridelab-state")
	msg.Set("state", stateJS(st))
	parent.Call("postMessage", msg, js.Global().Get("location").Get("origin"))
}

// exportOnPage saves an export (the frame's keys s, p and g) as the
// page's Export buttons do: the page's stridelabExport draws the scene on
// screen in its compute worker, where the headless renderers are (the
// frame's wasm leaves them out), and saves it as a download named name.
func exportOnPage(name, format string, _ *viz.Scene, step int) error {
	parent := js.Global().Get("parent")
	if parent.Equal(js.Global()) || parent.Get("stridelabExport").Type() != js.TypeFunction {
		return errors.New("this page cannot save exports: open the scene in the playground")
	}
	parent.Call("stridelabExport", format, step, name)
	return nil
}

// focusArg reads a call's first argument as a viz.Focus ({kind,
// operand, index, offset, rank}, as the State names it).
// onFocus is a frame method that takes a focus ({kind, operand, index,
// offset, rank}) and runs fn with it on the app's goroutine: a Promise of
// fn's result.
func onFocus(app *live.App, call string, fn func(a *live.App, f viz.Focus) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		f, err := focusArg(call, args)
		if err != nil {
			return jsvalue.Rejected(err)
		}
		return jsvalue.Promise(func(r jsvalue.Resolvers) {
			app.Post(func(a *live.App) {
				v, err := fn(a, f)
				if err != nil {
					r.Reject(err)
					return
				}
				r.Resolve(v)
			})
		})
	})
}

func focusArg(call string, args []js.Value) (viz.Focus, error) {
	var f viz.Focus
	if len(args) == 0 {
		return f, fmt.Errorf("stridelab.frame.%s: give a focus", call)
	}
	if err := jsvalue.Decode(args[0], &f); err != nil {
		return f, fmt.Errorf("stridelab.frame.%s: %w", call, err)
	}
	return f, nil
}

// stateJS is st as JS data, or an Error should it not encode.
func stateJS(st session.State) js.Value {
	v, err := jsvalue.Of(st)
	if err != nil {
		return jsvalue.Error(err)
	}
	return v
}
