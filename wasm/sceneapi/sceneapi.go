//go:build js && wasm

// Package sceneapi is the part of stridelab's JavaScript API that builds
// and describes scenes: RegisterScenes installs scene, scenes, spec, the
// lessons' methods and memStats on an object. The playground's scene
// frame (wasm/playground) registers these alone, so its wasm links no
// kernel, no WebGPU binding and no test suite; stridelab.wasm registers
// them beside the rest (package jsapi, whose doc lists every method).
// Every method takes a plain object and returns a Promise; a failed call
// rejects with the one line the CLI would print.
package sceneapi

import (
	"runtime"
	"syscall/js"

	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// RegisterScenes sets the methods that build and describe scenes (scene,
// scenes, spec, the lessons' and memStats): what the playground's scene
// frame needs to draw its first scene.
func RegisterScenes(obj js.Value) {
	obj.Set("scene", jsvalue.Async(Scene))
	obj.Set("scenes", jsvalue.Async(scenes))
	obj.Set("spec", jsvalue.Async(Spec))
	obj.Set("lessons", jsvalue.Async(lessonList))
	obj.Set("lessonRoute", jsvalue.Async(lessonRoute))
	obj.Set("lessonAnswers", jsvalue.Async(lessonAnswers))
	obj.Set("memStats", jsvalue.Async(MemStats))
}

// MemStats is the Go heap after a collection, for the leak test (a
// page's calls must leave nothing behind): {} -> {heapAlloc, heapInuse,
// heapObjects, sys, numGC} (runtime.MemStats's bytes and counts).
func MemStats(js.Value) (any, error) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return map[string]uint64{"heapAlloc": m.HeapAlloc, "heapInuse": m.HeapInuse,
		"heapObjects": m.HeapObjects, "sys": m.Sys, "numGC": uint64(m.NumGC)}, nil
}
