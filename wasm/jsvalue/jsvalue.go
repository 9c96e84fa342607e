//go:build js && wasm

// Package jsvalue is what stridelab's wasm binaries share at the seam with
// JavaScript: Go values as JS data (Of, Decode), Go errors as JS Errors
// (Error, Rejected), and Promises (Promise, Async) whose Go callbacks are
// released as soon as they are done, so that a page calling the API on
// every hover, keystroke and scrub does not keep a js.Func, and the
// request it holds, per call.
//
// # Callbacks
//
// A js.Func lives in the Go runtime's table until it is released, and
// with it everything its closure holds (a request's Float32Arrays
// included). Promise makes one executor per call and releases it right
// after `new Promise` returns: the executor runs synchronously inside the
// constructor, and the resolving functions it hands back are plain JS
// functions, callable from any goroutine later.
package jsvalue

import (
	"encoding/json"
	"fmt"
	"syscall/js"
)

// Of turns v into JS: a js.Value (a typed array, say) as it is, anything
// else as the JSON data encoding/json makes of it. A value JSON cannot
// encode is an error.
func Of(v any) (js.Value, error) {
	if jv, ok := v.(js.Value); ok {
		return jv, nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return js.Undefined(), err
	}
	return js.Global().Get("JSON").Call("parse", string(body)), nil
}

// Decode reads JS data into v as encoding/json would read the JSON that
// JSON.stringify makes of it.
func Decode(data js.Value, v any) error {
	return json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", data).String()), v)
}

// Error is a JS Error whose message is err's.
func Error(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}

// Rejected is a Promise already rejected with err as an Error.
func Rejected(err error) js.Value {
	return js.Global().Get("Promise").Call("reject", Error(err))
}

// Resolvers settle one Promise: the first call of Resolve or Reject
// counts, from any goroutine.
type Resolvers struct {
	resolve, reject js.Value
}

// Resolve fulfils the Promise with Of(v); a v that JSON cannot encode
// rejects it instead.
func (r Resolvers) Resolve(v any) {
	jv, err := Of(v)
	if err != nil {
		r.Reject(err)
		return
	}
	r.resolve.Invoke(jv)
}

// Reject rejects the Promise with err as an Error.
func (r Resolvers) Reject(err error) {
	r.reject.Invoke(Error(err))
}

// Promise returns a new Promise and starts fn with its resolvers; fn may
// settle it now or hand the resolvers on to settle it later. The
// executor, the only js.Func made, is released before Promise returns.
func Promise(fn func(Resolvers)) js.Value {
	var r Resolvers
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		r = Resolvers{resolve: args[0], reject: args[1]}
		return nil
	})
	p := js.Global().Get("Promise").New(executor) // calls executor before it returns
	executor.Release()
	fn(r)
	return p
}

// Async wraps fn as a JS function that returns a Promise: each call runs
// fn on a goroutine of its own with the call's first argument (undefined
// when there is none), resolves with Of(its result) and rejects with its
// error, or with "stridelab: " and the value of a panic, as an Error.
// Async's js.Func is meant to live as long as the page (a method of an
// API object); the calls leave nothing behind.
func Async(fn func(req js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := js.Undefined()
		if len(args) > 0 {
			req = args[0]
		}
		return Promise(func(r Resolvers) {
			go func() {
				defer func() {
					if p := recover(); p != nil {
						r.Reject(fmt.Errorf("stridelab: %v", p))
					}
				}()
				v, err := fn(req)
				if err != nil {
					r.Reject(err)
					return
				}
				r.Resolve(v)
			}()
		})
	})
}

// Field is req's property name, or undefined when req is not an object
// (a call with no argument).
func Field(req js.Value, name string) js.Value {
	if req.Type() != js.TypeObject {
		return js.Undefined()
	}
	return req.Get(name)
}

// Str is req's string property name, or "" when it is not a string.
func Str(req js.Value, name string) string {
	if v := Field(req, name); v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// Strings reads req's property name, an array of strings.
func Strings(req js.Value, name string) ([]string, error) {
	v := Field(req, name)
	if v.Type() != js.TypeObject || !js.Global().Get("Array").Call("isArray", v).Bool() {
		return nil, fmt.Errorf("%s: want an array of strings, got %s", name, v.Type())
	}
	out := make([]string, v.Length())
	for i := range out {
		x := v.Index(i)
		if x.Type() != js.TypeString {
			return nil, fmt.Errorf("%s[%d]: want a string, got %v", name, i, x)
		}
		out[i] = x.String()
	}
	return out, nil
}

// Ints reads req's property name, an array of integers.
func Ints(req js.Value, name string) ([]int, error) {
	v := Field(req, name)
	if v.Type() != js.TypeObject || !js.Global().Get("Array").Call("isArray", v).Bool() {
		return nil, fmt.Errorf("%s: want an array of integers, got %s", name, v.Type())
	}
	out := make([]int, v.Length())
	for i := range out {
		x := v.Index(i)
		if x.Type() != js.TypeNumber || x.Float() != float64(int(x.Float())) {
			return nil, fmt.Errorf("%s[%d]: want an integer, got %v", name, i, x)
		}
		out[i] = x.Int()
	}
	return out, nil
}
