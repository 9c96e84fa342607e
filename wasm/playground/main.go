//go:build js && wasm

// Command playground is the playground's scene frame: the desktop app's
// interactive renderer (viz/live, Ebitengine on WebGL) without its
// sidebar, in a same-origin iframe of the playground's page, and the
// JavaScript API (wasm/jsapi) beside it in one binary, so the page loads
// one wasm. It starts on its own location's hash (frame.html#/expand?…)
// and adds, on globalThis.stridelab.frame:
//
//	frame.show(hash)   // show a link's state: → Promise of the State
//	frame.act(key)     // press a key of session.Bindings ("space", "right", "+", …)
//	frame.state()      // → the State now (scene, spec, step, hover, pin, error, lesson, …)
//	frame.lesson(id, step) // open a built-in lesson at a step (1-based): → Promise of the State
//	frame.click(focus) // click a cell as the pointer would ({kind, operand, index, offset, rank}):
//	                   // pins it, or answers the open lesson's question
//	frame.locate(focus) // → Promise of {x, y}: where that cell is drawn, in the frame's CSS pixels
//	                    // (tests move the real pointer there)
//
// and posts {type: "stridelab-state", state} to the parent window
// whenever what it shows changes, so the page mirrors it in its URL and
// its results. globalThis.stridelabFirstDraw is the time (performance.now)
// its first scene was drawn.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/live"
	"github.com/stridelab/stridelab/viz/session"
	"github.com/stridelab/stridelab/wasm/jsapi"
)

func main() {
	api := js.Global().Get("Object").New()
	jsapi.RegisterScenes(api)
	js.Global().Set("stridelab", api)

	spec, opts, err := viz.ParseHash(js.Global().Get("location").Get("hash").String())
	if err != nil || spec.Scene == "" {
		spec, _ = viz.Example("expand")
	}
	var last session.State // what the frame shows, for frame.state()
	o := live.Options{Spec: spec, Embed: true, Paused: opts.Embed, Export: download,
		OnState: func(st session.State) { last = st; post(st) },
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
		return promise(func(resolve, reject js.Value) {
			spec, opts, err := viz.ParseHash(hash)
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			app.Post(func(a *live.App) {
				a.Session().Show(spec)
				if opts.Embed {
					a.Session().Pause()
				}
				resolve.Invoke(toJS(a.Session().State()))
			})
		})
	}))
	frame.Set("act", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return js.Global().Get("Error").New("stridelab.frame.act: name a key")
		}
		key := args[0].String()
		if _, ok := session.BindingFor(key); !ok {
			return js.Global().Get("Error").New(fmt.Sprintf("stridelab.frame.act: no key %q", key))
		}
		app.Post(func(a *live.App) { _ = a.Act(key) })
		return nil
	}))
	frame.Set("lesson", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("stridelab.frame.lesson: give a lesson's id and a step"))
		}
		id, step := args[0].String(), args[1].Int()
		return promise(func(resolve, reject js.Value) {
			app.Post(func(a *live.App) {
				if err := a.OpenLesson(id, step); err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(toJS(a.Session().State()))
			})
		})
	}))
	frame.Set("click", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("stridelab.frame.click: give a focus"))
		}
		var f viz.Focus
		if err := json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", args[0]).String()), &f); err != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("stridelab.frame.click: "+err.Error()))
		}
		return promise(func(resolve, reject js.Value) {
			app.Post(func(a *live.App) {
				a.Session().Click(&f)
				resolve.Invoke(toJS(a.Session().State()))
			})
		})
	}))
	frame.Set("locate", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("stridelab.frame.locate: give a focus"))
		}
		var f viz.Focus
		if err := json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", args[0]).String()), &f); err != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("stridelab.frame.locate: "+err.Error()))
		}
		return promise(func(resolve, reject js.Value) {
			app.Post(func(a *live.App) {
				x, y, err := a.Locate(f)
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(toJS(map[string]float64{"x": x, "y": y}))
			})
		})
	}))
	frame.Set("state", js.FuncOf(func(js.Value, []js.Value) any { return toJS(last) }))
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
	msg.Set("state", toJS(st))
	parent.Call("postMessage", msg, js.Global().Get("location").Get("origin"))
}

// download saves an export through the browser: a Blob and a link.
func download(name string, write func(io.Writer) error) error {
	var buf bytesBuffer
	if err := write(&buf); err != nil {
		return err
	}
	arr := js.Global().Get("Uint8Array").New(len(buf))
	js.CopyBytesToJS(arr, buf)
	blob := js.Global().Get("Blob").New([]any{arr})
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	a := js.Global().Get("document").Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name)
	a.Call("click")
	js.Global().Get("URL").Call("revokeObjectURL", url)
	return nil
}

type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// toJS turns v into JS data by way of JSON.
func toJS(v any) js.Value {
	b, err := json.Marshal(v)
	if err != nil {
		return js.Global().Get("Error").New(err.Error())
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

// promise runs fn with the Promise's resolve and reject.
func promise(fn func(resolve, reject js.Value)) js.Value {
	return js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, cb []js.Value) any {
		fn(cb[0], cb[1])
		return nil
	}))
}
