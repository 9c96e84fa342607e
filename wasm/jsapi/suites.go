//go:build js && wasm

package jsapi

import (
	"fmt"
	"syscall/js"
	"time"

	"github.com/stridelab/stridelab/bench"
	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/conform"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// conformance runs the kernel conformance suite on the request's backend
// against the CPU reference: {sizes?, only?, backend?, tune?} ->
// {backend, tuning, subgroups, cases, failures}. Sizes default to the
// suite's full sweep; only keeps the cases of those ops (conform.Only);
// tune ("gpu" runs a discrete GPU's kernels on any adapter) defaults to
// the adapter's own.
func conformance(req js.Value) (any, error) {
	be, err := backend(req)
	if err != nil {
		return nil, err
	}
	sizes := conform.DefaultSizes()
	if jsvalue.Field(req, "sizes").Truthy() {
		if sizes, err = jsvalue.Ints(req, "sizes"); err != nil {
			return nil, err
		}
	}
	var only []string
	if jsvalue.Field(req, "only").Truthy() {
		if only, err = jsvalue.Strings(req, "only"); err != nil {
			return nil, err
		}
	}
	cases := conform.Only(conform.Cases(conform.Options{Sizes: sizes}), only...)
	start := time.Now()
	fails := conform.Check(be, tensor.CPU{}, cases)
	msgs := make([]string, len(fails))
	for i, f := range fails {
		msgs[i] = f.String()
	}
	tuning, subgroups := "", false // the CPU reference has neither
	if g, ok := be.(*shaders.GPU); ok {
		tuning, subgroups = g.Device().Tuning().String(), g.Device().Subgroups()
	}
	return map[string]any{"backend": be.Name(), "tuning": tuning, "subgroups": subgroups, "cases": len(cases), "failures": msgs,
		"seconds": time.Since(start).Seconds()}, nil
}

// runBench times the benchmark's cases at browser sizes (bench.SmallCases)
// on the browser's WebGPU beside its copy kernel and copyBufferToBuffer:
// {rounds?} -> {device, results}.
func runBench(req js.Value) (any, error) {
	be, err := backend(js.Undefined())
	if err != nil {
		return nil, err
	}
	g := be.(*shaders.GPU)
	rounds := 3
	if r := jsvalue.Field(req, "rounds"); r.Type() == js.TypeNumber {
		rounds = r.Int()
	}
	var results []bench.DeviceResult
	for _, c := range bench.SmallCases() {
		r, err := bench.MeasureDevice(g, c, bench.DeviceOptions{Rounds: rounds, MinTime: 100 * time.Millisecond})
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		results = append(results, r)
	}
	return map[string]any{"device": g.Device().Info(), "results": results}, nil
}
