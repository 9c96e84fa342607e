//go:build js && wasm

package jsapi

import (
	"bytes"
	"syscall/js"

	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
	"github.com/stridelab/stridelab/wasm/jsvalue"
	"github.com/stridelab/stridelab/wasm/sceneapi"
)

// export writes the scene a hash names as render.Encode does, the bytes
// `stridelab draw` writes: {hash, format: "svg"|"png"|"gif"|"json",
// step (default the hash's), width, height (default 1280×720)} ->
// Uint8Array.
func export(req js.Value) (any, error) {
	s, spec, _, err := sceneapi.SceneOf(req)
	if err != nil {
		return nil, err
	}
	step := spec.Step
	if v := jsvalue.Field(req, "step"); v.Type() == js.TypeNumber {
		step = v.Int()
	}
	size := viz.DefaultSize
	if v := jsvalue.Field(req, "width"); v.Type() == js.TypeNumber {
		size.W = v.Int()
	}
	if v := jsvalue.Field(req, "height"); v.Type() == js.TypeNumber {
		size.H = v.Int()
	}
	var b bytes.Buffer
	if err := render.Encode(&b, s, jsvalue.Str(req, "format"), step, size); err != nil {
		return nil, err
	}
	arr := js.Global().Get("Uint8Array").New(b.Len())
	js.CopyBytesToJS(arr, b.Bytes())
	return arr, nil
}
