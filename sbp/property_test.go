package sbp_test

import (
	"runtime"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/sbpcheck"
	"github.com/stridelab/stridelab/tensor"
)

// TestProperty runs random ops on random global tensors on the CPU
// backend: a sharded run plus boxing must equal the single-device result.
func TestProperty(t *testing.T) {
	n := 3000
	if testing.Short() || runtime.GOOS == "js" { // make test-wasm: a sample, in the browser's runtime
		n = 300
	}
	failed := 0
	for _, c := range sbpcheck.Cases(1, n) {
		if err := c.Run(tensor.CPU{}); err != nil {
			t.Errorf("%s: %v", c.Name, err)
			if failed++; failed == 10 {
				t.Fatal("stopping after 10 failures")
			}
		}
	}
}

// TestEverySignature runs every signature of the ops below, as it is, on
// 1 to 5 devices and 2-D meshes, in every dtype: the gathered output
// equals the single-device result (within tensor.Tolerance for mean and
// the unary ops WebGPU's builtins compute).
func TestEverySignature(t *testing.T) {
	dtypes := []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32}
	cases := []struct {
		op     sbp.Op
		shapes []tensor.Shape
		dtypes []tensor.DType
	}{
		{sbp.Transpose(), []tensor.Shape{{5, 3}}, dtypes},
		{sbp.Transpose(), []tensor.Shape{{1, 7}}, dtypes},
		{sbp.Transpose(), []tensor.Shape{{0, 4}}, dtypes},
		{sbp.Scale(-1), []tensor.Shape{{4, 3}}, dtypes[:2]},
		{sbp.Scale(3), []tensor.Shape{{7}}, dtypes},
		{sbp.Scale(0), []tensor.Shape{{2, 5}}, dtypes},
		{sbp.Scale(-0.5), []tensor.Shape{{3, 1, 4}}, dtypes[:1]},
		{sbp.Scale(2), []tensor.Shape{{}}, dtypes},
		{sbp.RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}, dtypes},
		{sbp.RepeatGrad([]int{3, 1}, tensor.Shape{2, 7}), []tensor.Shape{{6, 7}}, dtypes},
		{sbp.RepeatGrad([]int{1, 2, 2}, tensor.Shape{4, 1, 3}), []tensor.Shape{{4, 2, 6}}, dtypes},
		{sbp.RepeatGrad([]int{4, 0}, tensor.Shape{3}), []tensor.Shape{{4, 0}}, dtypes},
		{sbp.Binary(tensor.Eq), []tensor.Shape{{4, 1}, {1, 5}}, dtypes},
		{sbp.Binary(tensor.Eq), []tensor.Shape{{3, 4}, {4}}, dtypes},
		{sbp.Binary(tensor.Mul), []tensor.Shape{{3, 4}, {4}}, dtypes},
		{sbp.Matmul(), []tensor.Shape{{5, 3}, {3, 4}}, dtypes},
		{sbp.Repeat([]int{2, 1, 3}), []tensor.Shape{{5, 1}}, dtypes},
		{sbp.Expand([]int{2, -1, 3}), []tensor.Shape{{4, 1}}, dtypes},
		{sbp.Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{4, 3}}, dtypes},
		{sbp.Binary(tensor.Add), []tensor.Shape{{2, 3}, {3}}, dtypes},
	}
	n := 0
	for i, c := range cases {
		for _, dt := range c.dtypes {
			for _, sc := range sbpcheck.SignatureCases(uint64(i), c.op, c.shapes, dt) {
				n++
				if err := sc.Run(tensor.CPU{}); err != nil {
					t.Errorf("%s: %v", sc.Name, err)
				}
			}
		}
	}
	grads, gathers := sbpcheck.GradSignatureCases, sbpcheck.GatherSignatureCases
	if runtime.GOOS == "js" { // make test-wasm: the like operand whole only (the browser's runtime runs the same kernels)
		grads, gathers = sbpcheck.GradKernelCases, sbpcheck.GatherKernelCases
	}
	all := append(append(append(append(sbpcheck.UnarySignatureCases(), sbpcheck.LayerSignatureCases()...), sbpcheck.SoftmaxSignatureCases()...), gathers()...), grads()...)
	if runtime.GOOS == "js" { // and an eighth of the meshes' cases: their SBP logic runs in full natively
		all = sbpcheck.ThinMeshes(all, 8)
	}
	for _, sc := range all {
		n++
		if err := sc.Run(tensor.CPU{}); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
		}
	}
	t.Logf("%d cases", n)
}
