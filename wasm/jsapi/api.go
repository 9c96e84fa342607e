//go:build js && wasm

// Package jsapi is stridelab's JavaScript API: Register installs its
// methods on an object (globalThis.stridelab in every stridelab wasm:
// the kernels' test page and the playground's frame). Every method takes
// a plain object and returns a Promise:
//
//	await stridelab.devices()                      // [{name, backend, type, limits}]
//	await stridelab.run({kernel: "expand", a: Float32Array, shape: [4,1,3], arg: [4,2,3]})
//	await stridelab.run({kernel: "binary", op: "add", a, shape, b, bShape})
//	await stridelab.run({kernel: "reduce", op: "sum", a, shape, arg: [1,3]})
//	    // -> {data: Float32Array|Int32Array|Uint32Array, shape, backend}
//	await stridelab.conformance({sizes: [0,1,2,5], backend: "gpu", tune: "gpu"}) // -> {backend, tuning, cases, failures}
//	await stridelab.bench({rounds: 3})             // -> {device, results}
//	await stridelab.scene({hash: "#/expand?shape=4,1,3&size=4,2,3", focus, hideAnswers, json})
//	    // -> {spec, scene, fields, shown, step, embed, lesson, title, steps, report, sections, command, json}
//	    // (json, the scene's meaning, unless the request says json: false)
//	await stridelab.export({hash, step: 5, format: "svg", width: 1280, height: 720})
//	    // -> Uint8Array: the bytes `stridelab draw` writes
//	await stridelab.scenes()                       // -> {version, scenes: [{name, keys: [{name, help, rows, choices}], example}]}
//	await stridelab.spec({scene, fields, step, changed}) // or ({command: "expand --shape 4,1,3 …"})
//	    // -> {hash, error, field}: the fields as a hash, and why they do not build
//	    // (check: false spells the hash without building the scene)
//	await stridelab.compute({hash, backend: "gpu", hideAnswers})
//	    // -> {backend, section}: the scene's op on arange inputs, checked against the CPU
//	await stridelab.sweep({src, cluster: "h100-nodes", devices: "1,2,4,8", mesh, strategy})
//	    // -> {strategy, mesh, rows: [{devices, placement, cluster, time_s, …}]}: stridelab sweep --json
//	await stridelab.memStats()                     // -> {heapAlloc, heapInuse, heapObjects, sys, numGC}
//	    // the Go heap after runtime.GC (the leak test reads it)
//
// The element type follows the typed array (Float32Array, Int32Array,
// Uint32Array). Kernels run on the browser's WebGPU ("gpu", the default)
// or on the CPU reference ("cpu"). Every call runs on a goroutine of its
// own: WebGPU's promises are awaited there, never inside a JS callback;
// a call leaves no js.Func behind (package jsvalue).
// A failed call rejects with an Error whose message is the one line the
// CLI would print; a result past the tab's budget (tensor's 1 GiB) is
// refused that way before anything is allocated.
package jsapi

import (
	"fmt"
	"sync"
	"syscall/js"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/wasm/jsvalue"
	"github.com/stridelab/stridelab/wasm/sceneapi"
)

// Register sets every method of the API on obj: the scenes' (package
// sceneapi, which the playground's frame registers alone), the kernels'
// and the test suites' (conformance and bench). stridelab.wasm
// registers them all: the kernels' page runs it, and so does the
// playground's compute worker (web/worker.js).
func Register(obj js.Value) {
	sceneapi.RegisterScenes(obj)
	RegisterCompute(obj)
	obj.Set("conformance", jsvalue.Async(conformance))
	obj.Set("bench", jsvalue.Async(runBench))
}

// RegisterCompute sets the methods that run kernels or draw files
// (devices, run, compute, export, sweep, memStats): the playground's results
// and exports, computed in its worker.
func RegisterCompute(obj js.Value) {
	obj.Set("devices", jsvalue.Async(devices))
	obj.Set("run", jsvalue.Async(run))
	obj.Set("compute", jsvalue.Async(compute))
	obj.Set("export", jsvalue.Async(export))
	obj.Set("sweep", jsvalue.Async(runSweep))
	obj.Set("memStats", jsvalue.Async(sceneapi.MemStats))
}

// gpus holds the browser's WebGPU backends opened so far, one per tuning.
var gpus struct {
	sync.Mutex
	byTuning map[shaders.Tuning]*shaders.GPU
}

// backend returns the backend a request names: "gpu" (the default) opens
// the browser's WebGPU device once per tuning (the request's tune: auto,
// the default, gpu or cpu; see shaders.ParseTuning); "cpu" is the
// reference.
func backend(req js.Value) (tensor.Backend, error) {
	name := "gpu"
	if b := jsvalue.Field(req, "backend"); b.Type() == js.TypeString {
		name = b.String()
	}
	switch name {
	case "cpu":
		return tensor.CPU{}, nil
	case "gpu":
		tune := ""
		if t := jsvalue.Field(req, "tune"); t.Type() == js.TypeString {
			tune = t.String()
		}
		tuning, err := shaders.ParseTuning(tune)
		if err != nil {
			return nil, fmt.Errorf("tune %w", err)
		}
		gpus.Lock()
		defer gpus.Unlock()
		if g := gpus.byTuning[tuning]; g != nil {
			return g, nil
		}
		dev, err := shaders.Open(shaders.Options{Tuning: tuning})
		if err != nil {
			return nil, fmt.Errorf("WebGPU: %w (is it enabled in this browser?)", err)
		}
		if gpus.byTuning == nil {
			gpus.byTuning = map[shaders.Tuning]*shaders.GPU{}
		}
		gpus.byTuning[tuning] = shaders.NewBackend(dev)
		return gpus.byTuning[tuning], nil
	}
	return nil, fmt.Errorf("backend %q: choose gpu or cpu", name)
}

func devices(js.Value) (any, error) {
	list, err := shaders.Adapters()
	if list == nil {
		list = []shaders.AdapterInfo{}
	}
	return list, err
}
