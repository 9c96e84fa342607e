package results

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

type skewed struct{ tensor.CPU }

func (skewed) Name() string { return "skewed" }

func (skewed) Materialize(src tensor.Tensor) (tensor.Tensor, error) {
	y, err := tensor.CPU{}.Materialize(src)
	if b, _ := tensor.Buffer[float32](y); err == nil && len(b) > 0 {
		b[0] += 1.5
	}
	return y, err
}

// TestComputeIsTheCPUKernels: Compute on the CPU writes the CPU kernels'
// values over arange inputs for every kind of scene (TestComputeAgreement
// has a backend that differs), and refuses a result past the budget with tensor's error.
func TestComputeIsTheCPUKernels(t *testing.T) {
	x := func(s string) tensor.Tensor {
		sh, _ := tensor.ParseShape(s)
		v, _ := tensor.Arange(tensor.Float32, sh)
		return v
	}
	cpu := tensor.CPU{}
	for _, c := range []struct {
		spec viz.Spec
		want func() (tensor.Tensor, error)
	}{
		{viz.Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}}, func() (tensor.Tensor, error) { return tensor.Expand(cpu, x("4,1,3"), []int{4, 2, 3}) }},
		{viz.Spec{Scene: "repeat", Values: map[string]string{"shape": "2,3", "times": "2,2"}}, func() (tensor.Tensor, error) { return cpu.Repeat(x("2,3"), []int{2, 2}) }},
		{viz.Spec{Scene: "binary", Values: map[string]string{"shape": "3,1", "b-shape": "1,4", "op": "add"}}, func() (tensor.Tensor, error) { return cpu.Binary(tensor.Add, x("3,1"), x("1,4")) }},
		{viz.Spec{Scene: "reduce", Values: map[string]string{"shape": "2,3,4", "to": "1,3,1"}}, func() (tensor.Tensor, error) { return cpu.Reduce(tensor.Sum, x("2,3,4"), tensor.Shape{1, 3, 1}) }},
		{viz.Spec{Scene: "view", Values: map[string]string{"shape": "2,3,4", "permute": "2,0,1"}}, func() (tensor.Tensor, error) {
			v, _ := x("2,3,4").Permute([]int{2, 0, 1})
			return cpu.Materialize(v)
		}},
		{viz.Spec{Scene: "view", Values: map[string]string{"shape": "4,5", "permute": "1,0", "reshape": "2,-1"}}, func() (tensor.Tensor, error) {
			v, _ := x("4,5").Permute([]int{1, 0})
			c, err := cpu.Materialize(v)
			if err != nil {
				return c, err
			}
			return c.Reshape([]int{2, 10})
		}},
		{viz.Spec{Scene: "repeat", Values: map[string]string{"shape": "40,1,30", "times": "1,2,2"}}, func() (tensor.Tensor, error) { return cpu.Repeat(x("40,1,30"), []int{1, 2, 2}) }},
		{viz.Spec{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}}, func() (tensor.Tensor, error) { return x("8,6"), nil }},
		{viz.Spec{Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}}, func() (tensor.Tensor, error) { return x("25,33"), nil }},
		{viz.Spec{Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "3"}}, func() (tensor.Tensor, error) { return tensor.Expand(cpu, x("4,3,1,2"), []int{2, 4, 3, 4, 2}) }},
		{viz.Spec{Scene: "plan", Values: map[string]string{"op": "add", "shape": "4,6", "b-shape": "1,6", "sbp": "S(0)", "placement": "2"}}, func() (tensor.Tensor, error) { return cpu.Binary(tensor.Add, x("4,6"), x("1,6")) }},
	} {
		s, err := viz.Build(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Compute(context.Background(), s, nil)
		if err != nil {
			t.Fatalf("%v: %v", c.spec, err)
		}
		want, _ := c.want()
		wantLines := append([]string{fmt.Sprintf("backend cpu, output %v float32", want.Shape()), "equals the CPU reference"}, FormatValues(want)...)
		if !slices.Equal(got.Lines, wantLines) {
			t.Errorf("%v: Compute says\n%s\nwant the CPU kernel's\n%s", c.spec, strings.Join(got.Lines, "\n"), strings.Join(wantLines, "\n"))
		}
	}
	for _, spec := range []viz.Spec{
		{Scene: "expand", Values: map[string]string{"shape": "1", "size": "1000000000,1000000000"}},
		{Scene: "repeat", Values: map[string]string{"shape": "3", "times": "100000,100000,10000"}},
		{Scene: "placement", Values: map[string]string{"shape": "1000000,1000000", "sbp": "S(0)", "placement": "4"}},
	} {
		s, err := viz.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compute(context.Background(), s, nil)
		if !errors.Is(err, tensor.ErrTooLarge) || !strings.HasPrefix(err.Error(), "tensor: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want tensor's one-line budget error", spec, err)
		}
	}
}

// nudged is the CPU with its binary results one float32 step off at the
// second element, as a GPU's division (exact to 2.5 ULP in WGSL) may be.
type nudged struct{ tensor.CPU }

func (nudged) Name() string { return "nudged" }

func (nudged) Binary(op tensor.BinaryOp, a, b tensor.Tensor) (tensor.Tensor, error) {
	y, err := tensor.CPU{}.Binary(op, a, b)
	if b, _ := tensor.Buffer[float32](y); err == nil && len(b) > 1 {
		b[1] = math.Nextafter32(b[1], 2*b[1])
	}
	return y, err
}

// TestComputeAgreement: the results panel compares with tensor's one
// rule. Over arange inputs binary div computes 0/0 = NaN at [0 0] on both
// sides, which agrees (a NaN is a NaN at the same place); a backend off
// in the last bit agrees within the tolerance and says so; a backend off
// by 1.5 differs.
func TestComputeAgreement(t *testing.T) {
	div := viz.Spec{Scene: "binary", Values: map[string]string{"shape": "2,3", "b-shape": "2,3", "op": "div"}}
	for _, c := range []struct {
		spec viz.Spec
		b    tensor.Backend
		want string
	}{
		{div, nil, "equals the CPU reference"},
		{div, nudged{}, "agrees with the CPU reference within 1e-5 (largest difference 1.1920929e-7 at [0 1])"},
		{viz.Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}}, skewed{},
			"differs from the CPU reference: 1.5 against 0 at [0 0 0] (difference 1.5, tolerance 1e-5)"},
	} {
		s, err := viz.Build(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Compute(context.Background(), s, c.b)
		if err != nil {
			t.Fatalf("%v: %v", c.spec, err)
		}
		if len(got.Lines) < 2 || got.Lines[1] != c.want {
			t.Errorf("%v on %v: Compute says\n%s\nwant the line %q", c.spec, c.b, strings.Join(got.Lines, "\n"), c.want)
		}
	}
}

func TestFormatValues(t *testing.T) {
	for _, c := range []struct {
		shape string
		want  []string
	}{
		{"4", []string{"[0 1 2 3]"}},
		{"2,3", []string{"[[0 1 2]", " [3 4 5]]"}},
		{"20", []string{"[0 1 2 … 17 18 19]"}},
		{"6,10", []string{"[[0 1 2 … 7 8 9]", " [10 11 12 … 17 18 19]", " …", " [40 41 42 … 47 48 49]", " [50 51 52 … 57 58 59]]"}},
		{"2,1,2", []string{"values, as 2 rows of the last dim:", "[[0 1]", " [2 3]]"}},
		{"0,3", []string{"[] (empty)"}},
	} {
		sh, _ := tensor.ParseShape(c.shape)
		x, _ := tensor.Arange(tensor.Float32, sh)
		if got := FormatValues(x); !slices.Equal(got, c.want) {
			t.Errorf("FormatValues(arange %s) = %q, want %q", c.shape, got, c.want)
		}
	}
}

// BenchmarkReportAndCompute is the results panel of a 64×64 expand.
func BenchmarkReportAndCompute(b *testing.B) {
	s, err := viz.Build(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "64,1", "size": "64,64"}})
	if err != nil {
		b.Fatal(err)
	}
	f := &viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 7}
	for b.Loop() {
		_ = s.Report(3, f)
		if _, err := Compute(context.Background(), s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHidden: while a question is open the results panel keeps the
// computed section's title and none of its values.
func TestHidden(t *testing.T) {
	s, err := viz.Build(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}})
	if err != nil {
		t.Fatal(err)
	}
	sec, err := Compute(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := Hidden(sec)
	if h.Title != sec.Title || !slices.Equal(h.Lines, []string{"values " + viz.Hidden}) || h.Table != nil {
		t.Errorf("Hidden(%q) = %+v, want the title and only that the values are hidden", sec, h)
	}
	if !strings.Contains(sec.String(), "[9 10 11]") || strings.Contains(h.String(), "9") {
		t.Errorf("the section shows %q, hidden %q", sec, h)
	}
}
