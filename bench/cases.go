// Package bench holds stridelab's benchmark cases and runs them on any
// tensor.Backend beside their peers: NumPy on the CPU now, the device's own
// copy kernels once WebGPU backends exist. The same case list drives the Go
// benchmarks (go test -bench), `stridelab bench` and `make bench`.
package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Case is one benchmarked kernel call on float32 data.
type Case struct {
	Name string       // as printed in reports
	Op   string       // "expand", "repeat", "sum" or "add"
	In   tensor.Shape // the input (a for add)
	B    tensor.Shape // add's second input
	Arg  []int        // expand size, repeat times or reduce target
}

// Cases returns the nine cases of the tensor-core benchmark: the
// data-movement and reduction kernels, then a unary op (exp) and softmax
// along the last dim, whose one pass a line reads it more than once.
func Cases() []Case {
	return []Case{
		{Name: "expand [1024,1,4096]->[1024,4,4096]", Op: "expand", In: tensor.Shape{1024, 1, 4096}, Arg: []int{1024, 4, 4096}},
		{Name: "expand [1,4096]->[4096,4096]", Op: "expand", In: tensor.Shape{1, 4096}, Arg: []int{4096, 4096}},
		{Name: "repeat [1024,4096] by [2,2]", Op: "repeat", In: tensor.Shape{1024, 4096}, Arg: []int{2, 2}},
		{Name: "repeat [64,1,256] by [2,16,1]", Op: "repeat", In: tensor.Shape{64, 1, 256}, Arg: []int{2, 16, 1}},
		{Name: "sum [1024,4,4096] to [1024,1,4096]", Op: "sum", In: tensor.Shape{1024, 4, 4096}, Arg: []int{1024, 1, 4096}},
		{Name: "sum [64,256,1024] to [1,256,1]", Op: "sum", In: tensor.Shape{64, 256, 1024}, Arg: []int{1, 256, 1}},
		{Name: "add [1024,1,4096]+[1,4,4096]", Op: "add", In: tensor.Shape{1024, 1, 4096}, B: tensor.Shape{1, 4, 4096}},
		{Name: "exp [4096,4096]", Op: "exp", In: tensor.Shape{4096, 4096}},
		{Name: "softmax [4096,4096] along 1", Op: "softmax", In: tensor.Shape{4096, 4096}, Arg: []int{1}},
	}
}

// Select returns the cases whose names start with one of the
// comma-separated words of only ("sum,add"), all of them for "", or an
// error naming a word no case starts with.
func Select(cases []Case, only string) ([]Case, error) {
	if only == "" {
		return cases, nil
	}
	var out []Case
	for _, w := range strings.Split(only, ",") {
		found := false
		for _, c := range cases {
			if w != "" && strings.HasPrefix(c.Name, w) && !slices.ContainsFunc(out, func(o Case) bool { return o.Name == c.Name }) {
				out, found = append(out, c), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no case starts with %q (the cases: expand, repeat, sum, add, exp, softmax)", w)
		}
	}
	return out, nil
}

// SmallCases returns the nine cases at about a sixteenth of the bytes
// (the small repeat as it is): what the browser runs, where software
// WebGPU (SwiftShader) is several times slower than lavapipe.
func SmallCases() []Case {
	return []Case{
		{Name: "expand [64,1,4096]->[64,4,4096]", Op: "expand", In: tensor.Shape{64, 1, 4096}, Arg: []int{64, 4, 4096}},
		{Name: "expand [1,4096]->[256,4096]", Op: "expand", In: tensor.Shape{1, 4096}, Arg: []int{256, 4096}},
		{Name: "repeat [64,4096] by [2,2]", Op: "repeat", In: tensor.Shape{64, 4096}, Arg: []int{2, 2}},
		{Name: "repeat [64,1,256] by [2,16,1]", Op: "repeat", In: tensor.Shape{64, 1, 256}, Arg: []int{2, 16, 1}},
		{Name: "sum [64,4,4096] to [64,1,4096]", Op: "sum", In: tensor.Shape{64, 4, 4096}, Arg: []int{64, 1, 4096}},
		{Name: "sum [4,256,1024] to [1,256,1]", Op: "sum", In: tensor.Shape{4, 256, 1024}, Arg: []int{1, 256, 1}},
		{Name: "add [64,1,4096]+[1,4,4096]", Op: "add", In: tensor.Shape{64, 1, 4096}, B: tensor.Shape{1, 4, 4096}},
		{Name: "exp [256,4096]", Op: "exp", In: tensor.Shape{256, 4096}},
		{Name: "softmax [256,4096] along 1", Op: "softmax", In: tensor.Shape{256, 4096}, Arg: []int{1}},
	}
}

// Inputs returns the case's operands: deterministic float32 values in
// [0, 1), so sums stay well conditioned.
func (c Case) Inputs() ([]tensor.Tensor, error) {
	shapes := []tensor.Shape{c.In}
	if c.Op == "add" {
		shapes = append(shapes, c.B)
	}
	var out []tensor.Tensor
	for k, s := range shapes {
		n, err := s.NumElements()
		if err != nil {
			return nil, err
		}
		data := make([]float32, n)
		x := uint32(2463534242 + k)
		for i := range data {
			x ^= x << 13 // xorshift32
			x ^= x >> 17
			x ^= x << 5
			data[i] = float32(x>>8) / (1 << 24)
		}
		t, err := tensor.FromSlice(s, data)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Run executes the case once on be, allocating a fresh output as NumPy does.
func (c Case) Run(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error) {
	switch c.Op {
	case "expand":
		return tensor.Expand(be, in[0], c.Arg)
	case "repeat":
		return be.Repeat(in[0], c.Arg)
	case "sum":
		return be.Reduce(tensor.Sum, in[0], c.Arg)
	case "add":
		return be.Binary(tensor.Add, in[0], in[1])
	case "exp":
		return be.Unary(tensor.Exp, in[0])
	case "softmax":
		return be.Softmax(in[0], c.Arg[0])
	}
	return tensor.Tensor{}, fmt.Errorf("bench: unknown op %q in case %q", c.Op, c.Name)
}

// Bytes returns the bytes the kernel must move: every input element read
// once (a broadcast input counts once, not per copy) plus every output
// element written once.
func (c Case) Bytes() int64 {
	in, _ := c.In.NumElements()
	b, _ := c.B.NumElements()
	if c.Op != "add" {
		b = 0
	}
	var out int
	switch c.Op {
	case "expand", "sum":
		out, _ = tensor.Shape(c.Arg).NumElements()
	case "repeat":
		p, _ := tensor.PlanRepeat(c.In, c.Arg)
		out, _ = p.OutShape.NumElements()
	case "add":
		s, _ := tensor.BroadcastShapes(c.In, c.B)
		out, _ = s.NumElements()
	case "exp", "softmax":
		out = in
	}
	return 4 * int64(in+b+out)
}
