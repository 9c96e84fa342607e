package shaders

import (
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/sbpcheck"
	"github.com/stridelab/stridelab/tensor"
)

// TestGlobalOps runs the SBP property suite with every simulated device's
// kernels on WebGPU: sharded runs plus boxing equal the single-device
// (CPU) result.
func TestGlobalOps(t *testing.T) {
	d := openOrSkip(t, Options{})
	n := 300
	if testing.Short() {
		n = 60
	}
	start, failed := time.Now(), 0
	be := NewBackend(d)
	for _, c := range sbpcheck.Cases(2, n) {
		if err := c.Run(be); err != nil {
			t.Errorf("%s: %v", c.Name, err)
			if failed++; failed == 10 {
				t.Fatal("stopping after 10 failures")
			}
		}
	}
	t.Logf("%d cases in %v", n, time.Since(start))
}

// TestGradOpsOnEverySignature runs every signature of the ops a backward
// pass adds (transpose, scale, repeat_grad, eq) as it is, on WebGPU.
func TestGradOpsOnEverySignature(t *testing.T) {
	be := NewBackend(openOrSkip(t, Options{}))
	start, n := time.Now(), 0
	for i, c := range []struct {
		op     sbp.Op
		shapes []tensor.Shape
		dtype  tensor.DType
	}{
		{sbp.Transpose(), []tensor.Shape{{5, 3}}, tensor.Float32},
		{sbp.Scale(-1), []tensor.Shape{{4, 3}}, tensor.Int32}, // clamps max's identity into min's
		{sbp.Scale(0.5), []tensor.Shape{{7}}, tensor.Float32},
		{sbp.RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}, tensor.Uint32},
		{sbp.Binary(tensor.Eq), []tensor.Shape{{4, 1}, {1, 5}}, tensor.Int32},
	} {
		for _, sc := range sbpcheck.SignatureCases(uint64(i), c.op, c.shapes, c.dtype) {
			n++
			if err := sc.Run(be); err != nil {
				t.Errorf("%s: %v", sc.Name, err)
			}
		}
	}
	t.Logf("%d cases in %v", n, time.Since(start))
}

// TestUnaryOpsOnEverySignature runs every signature of every unary op, in
// every dtype it takes, of mean, and of the layer ops (softmax,
// transpose, permute, …), as it is, on WebGPU: every case on 1 to 5
// devices, an eighth of each op's on the 2 × 2 and 2 × 3 meshes (which
// run in full on the CPU: sbpcheck.ThinMeshes)
// (sbpcheck.UnarySignatureCases, sbpcheck.LayerSignatureCases,
// sbpcheck.SoftmaxSignatureCases, sbpcheck.GatherKernelCases: gather
// and its backward, whose table shards look up and sum rows at their
// offsets, sbpcheck.GradKernelCases: the gradient ops' with their like
// B only, since like's layout never reaches a kernel).
func TestUnaryOpsOnEverySignature(t *testing.T) {
	be := NewBackend(openOrSkip(t, Options{}))
	start, failed := time.Now(), 0
	cases := append(sbpcheck.UnarySignatureCases(), sbpcheck.LayerSignatureCases()...)
	cases = append(cases, sbpcheck.SoftmaxSignatureCases()...)
	cases = append(cases, sbpcheck.GatherKernelCases()...)
	cases = append(cases, sbpcheck.GradKernelCases()...)
	all := len(cases)
	cases = sbpcheck.ThinMeshes(cases, 8)
	for _, sc := range cases {
		if err := sc.Run(be); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			if failed++; failed == 10 {
				t.Fatal("stopping after 10 failures")
			}
		}
	}
	t.Logf("%d cases (of %d; the meshes' thinned) in %v", len(cases), all, time.Since(start))
}
