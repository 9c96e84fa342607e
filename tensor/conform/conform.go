// Package conform is the kernel conformance suite every tensor.Backend
// runs: the same cases on the CPU reference and on the backend under test,
// compared exactly for copies and integer ops and to a tight relative
// tolerance for float sums. The native GPU tests and the browser page run
// it alike, so all three backends are held to one list.
package conform

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Case is one kernel call on fixed inputs.
type Case struct {
	Name string
	// Run calls the kernel on be.
	Run func(be tensor.Backend) (tensor.Tensor, error)
	// Tol is the relative tolerance against the reference (0: exact).
	Tol float64
}

// Options shape the sweep.
type Options struct {
	// Sizes of the swept dim; DefaultSizes hits every workgroup tail.
	Sizes []int
	// Huge adds a gather of more elements than 65535 workgroups of 256
	// invocations cover one to one (16.8M): a kernel must loop or dispatch
	// in 2-D to finish it.
	Huge bool
}

// Only returns the cases whose name starts with one of the words (an
// op's name: "sum", "softmax"), in their order; all of them for none.
func Only(cases []Case, words ...string) []Case {
	if len(words) == 0 {
		return cases
	}
	var out []Case
	for _, c := range cases {
		if slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(c.Name, w+" ") }) {
			out = append(out, c)
		}
	}
	return out
}

// DefaultSizes are 0, 1, 2, …, 17, 33, 65 and 257.
func DefaultSizes() []int {
	s := []int{}
	for n := 0; n <= 17; n++ {
		s = append(s, n)
	}
	return append(s, 33, 65, 257)
}

// unaryTol bounds the float32 unary ops whose WGSL builtins are not
// exact: WGSL allows exp 3 + 2·|x| ulp (x within ±12.5 here: at most 28
// ulp, 3.3e-6), log and inverseSqrt a few ulp or 2⁻²¹ absolute, tanh what
// sinh/cosh give. Neg, relu and step are exact on every backend.
func unaryTol(op tensor.UnaryOp, dt tensor.DType) float64 {
	switch op {
	case tensor.Neg, tensor.Relu, tensor.Step:
		return 0
	}
	if dt != tensor.Float32 {
		return 0
	}
	return tensor.Tolerance
}

// binaryTol bounds the float32 binary ops WGSL does not round exactly:
// its x / y is accurate to 2.5 ulp (WGSL §14.6.2, floating-point
// accuracy), and NVIDIA's Vulkan driver takes that room (an H200 gave
// −3.5454547 for −3.5454545); lavapipe and SwiftShader divide exactly.
// 2.5 ulp of float32 is 2.5·2⁻²³ relative. Every other binary op is
// exact on every backend.
func binaryTol(op tensor.BinaryOp, dt tensor.DType) float64 {
	if op == tensor.Div && dt == tensor.Float32 {
		return 2.5 / (1 << 23)
	}
	return 0
}

// sumTol bounds float32 sums: the CPU accumulates in float64, a GPU in f32
// in a different order; a few hundred additions of values below 1000 stay
// well within tensor.Tolerance, the tolerance every comparison of two
// runs uses.
const sumTol = tensor.Tolerance

// Cases returns the suite: every kernel (materialize, expand, repeat,
// binary ops, reduce ops, unary ops, softmax) in every dtype, over contiguous,
// permuted, expanded and sliced inputs of ranks 0 to 6 and the swept
// sizes, and the unary ops and softmax on IEEE 754's special values;
// then gather and scatter-add on fixed ids and views, and at the largest
// swept size (gatherCases).
func Cases(o Options) []Case {
	var cs []Case
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
		for _, n := range o.Sizes {
			for _, in := range layouts(dt, n) {
				in := in
				cs = append(cs, Case{Name: fmt.Sprintf("materialize %s", in.name), Run: func(be tensor.Backend) (tensor.Tensor, error) {
					return be.Materialize(in.t)
				}})
				for _, r := range reduceTargets(in.t.Shape()) {
					for _, op := range tensor.ReduceOps() {
						if op != tensor.Sum && in.t.NumElements() == 0 {
							continue // max/min of nothing is an error on every backend
						}
						tol := 0.0
						if op == tensor.Sum && dt == tensor.Float32 {
							tol = sumTol
						}
						cs = append(cs, Case{Name: fmt.Sprintf("%v %s to %v", op, in.name, r), Tol: tol,
							Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Reduce(op, in.t, r) }})
					}
				}
			}
			cs = append(cs, unaryCases(dt, n)...)
			cs = append(cs, softmaxCases(dt, n)...)
			cs = append(cs, expandCases(dt, n)...)
			cs = append(cs, repeatCases(dt, n)...)
			cs = append(cs, binaryCases(dt, n)...)
		}
		for rank := 0; rank <= 6; rank++ {
			cs = append(cs, rankCases(dt, rank)...)
		}
	}
	cs = append(cs, specialCases()...)
	cs = append(cs, softmaxSpecialCases()...)
	cs = append(cs, gatherCases(o.Sizes)...)
	if o.Huge {
		n := 65536*256 + 3
		x := values(tensor.Float32, tensor.Shape{n, 1})
		cs = append(cs, Case{Name: fmt.Sprintf("expand [%d,1] to [%d,2] (past 65535·256 elements)", n, n), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return tensor.Expand(be, x, []int{n, 2})
		}})
	}
	return cs
}

// Failure is a case whose result differs from the reference.
type Failure struct {
	Case   string
	Reason string
}

func (f Failure) String() string { return f.Case + ": " + f.Reason }

// Check runs every case on be and on ref and returns the differences; an
// error from both sides counts as agreement.
func Check(be, ref tensor.Backend, cases []Case) []Failure {
	var fails []Failure
	for _, c := range cases {
		if reason := compare(c, be, ref); reason != "" {
			fails = append(fails, Failure{Case: c.Name, Reason: reason})
		}
	}
	return fails
}

func compare(c Case, be, ref tensor.Backend) string {
	want, werr := c.Run(ref)
	got, gerr := c.Run(be)
	switch {
	case werr != nil && gerr != nil:
		return ""
	case werr != nil:
		return fmt.Sprintf("%s succeeded where %s failed with %v", be.Name(), ref.Name(), werr)
	case gerr != nil:
		return fmt.Sprintf("%s failed: %v", be.Name(), gerr)
	}
	if sameBits(got, want) {
		return ""
	}
	ag, err := tensor.Agree(got, want, c.Tol)
	switch {
	case err != nil:
		return err.Error()
	case !ag.Agrees:
		return ag.Words(ref.Name() + "'s")
	}
	return ""
}

// sameBits reports whether got and want are of one dtype and shape and
// hold the same bits, compared straight from their buffers when each
// buffer is exactly its tensor's contiguous elements (a result always
// is). tensor.Agree passes such a pair at any tolerance, one value at a
// time through float64: the suite's gather of 33.5M elements took 3 s
// to compare that way, milliseconds this way. Any other pair is left to
// Agree.
func sameBits(got, want tensor.Tensor) bool {
	if got.DType() != want.DType() || !got.Shape().Equal(want.Shape()) {
		return false
	}
	g, w := tensor.RawBytes(got), tensor.RawBytes(want)
	whole := func(t tensor.Tensor, b []byte) bool {
		return t.Layout().IsContiguous() && len(b) == 4*t.NumElements()
	}
	return whole(got, g) && whole(want, w) && bytes.Equal(g, w)
}
