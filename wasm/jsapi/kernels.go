//go:build js && wasm

package jsapi

import (
	"fmt"
	"syscall/js"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// run executes one kernel call: {kernel, op, a, shape, b, bShape, arg,
// backend} -> {data, shape, backend}.
func run(req js.Value) (any, error) {
	be, err := backend(req)
	if err != nil {
		return nil, err
	}
	kernel := jsvalue.Str(req, "kernel")
	a, err := tensorOf(req, "a", "shape")
	if err != nil {
		return nil, err
	}
	var out tensor.Tensor
	switch kernel {
	case "materialize":
		out, err = be.Materialize(a)
	case "expand":
		var size []int
		if size, err = jsvalue.Ints(req, "arg"); err == nil {
			out, err = tensor.Expand(be, a, size)
		}
	case "repeat":
		var times []int
		if times, err = jsvalue.Ints(req, "arg"); err == nil {
			out, err = be.Repeat(a, times)
		}
	case "binary":
		var op tensor.BinaryOp
		var b tensor.Tensor
		if op, err = tensor.ParseBinaryOp(jsvalue.Str(req, "op")); err == nil {
			if b, err = tensorOf(req, "b", "bShape"); err == nil {
				out, err = be.Binary(op, a, b)
			}
		}
	case "reduce":
		var op tensor.ReduceOp
		var to []int
		if op, err = tensor.ParseReduceOp(jsvalue.Str(req, "op")); err == nil {
			if to, err = jsvalue.Ints(req, "arg"); err == nil {
				out, err = be.Reduce(op, a, to)
			}
		}
	default:
		return nil, fmt.Errorf("kernel %q: choose materialize, expand, repeat, binary or reduce", kernel)
	}
	if err != nil {
		return nil, err
	}
	res := js.Global().Get("Object").New()
	res.Set("data", typedArrayOf(out))
	shape, _ := jsvalue.Of([]int(out.Shape())) // ints always encode
	res.Set("shape", shape)
	res.Set("backend", be.Name())
	return res, nil
}

// tensorOf copies the typed array req[data] into a tensor of shape
// req[shape]; the element type follows the array's class.
func tensorOf(req js.Value, data, shape string) (tensor.Tensor, error) {
	arr := jsvalue.Field(req, data)
	s, err := jsvalue.Ints(req, shape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if arr.Type() != js.TypeObject {
		return tensor.Tensor{}, fmt.Errorf("%s: want a Float32Array, Int32Array or Uint32Array", data)
	}
	var dt tensor.DType
	switch arr.Get("constructor").Get("name").String() {
	case "Float32Array":
		dt = tensor.Float32
	case "Int32Array":
		dt = tensor.Int32
	case "Uint32Array":
		dt = tensor.Uint32
	default:
		return tensor.Tensor{}, fmt.Errorf("%s: want a Float32Array, Int32Array or Uint32Array, got %s", data, arr.Get("constructor").Get("name"))
	}
	n, err := tensor.Shape(s).NumElements()
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %w", shape, err)
	}
	if got := arr.Length(); got != n {
		return tensor.Tensor{}, fmt.Errorf("%s holds %d elements, %s %v needs %d", data, got, shape, s, n)
	}
	t, err := tensor.Empty(dt, s)
	if err != nil {
		return tensor.Tensor{}, err
	}
	bytes := js.Global().Get("Uint8Array").New(arr.Get("buffer"), arr.Get("byteOffset"), arr.Get("byteLength"))
	js.CopyBytesToGo(tensor.RawBytes(t), bytes)
	return t, nil
}

// typedArrayOf copies a contiguous tensor into a new typed array.
func typedArrayOf(t tensor.Tensor) js.Value {
	class := map[tensor.DType]string{tensor.Float32: "Float32Array", tensor.Int32: "Int32Array", tensor.Uint32: "Uint32Array"}[t.DType()]
	arr := js.Global().Get(class).New(t.NumElements())
	if raw := tensor.RawBytes(t); len(raw) > 0 {
		js.CopyBytesToJS(js.Global().Get("Uint8Array").New(arr.Get("buffer")), raw)
	}
	return arr
}
