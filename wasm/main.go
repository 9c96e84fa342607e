//go:build js && wasm

// Command wasm is stridelab's kernels in the browser, for the test page in
// web/: it installs globalThis.stridelab (package jsapi) and calls
// globalThis.stridelabReady, when the page defined it, once the API is
// there.
package main

import (
	"syscall/js"

	"github.com/stridelab/stridelab/wasm/jsapi"
)

func main() {
	api := js.Global().Get("Object").New()
	jsapi.Register(api)
	js.Global().Set("stridelab", api)
	if ready := js.Global().Get("stridelabReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
