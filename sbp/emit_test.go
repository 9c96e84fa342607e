package sbp

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// A whole program: its steps in order on Python variables made from its
// names, the engine's autograd with retain_grad for the steps' gradients,
// and every result saved; an SBP OneFlow cannot spell is refused.
func TestEmitWholeProgram(t *testing.T) {
	p, _ := ParsePlacement("2")
	pr := Program{
		Placement: p,
		Inputs:    []Input{{Name: "x", Shape: tensor.Shape{4, 3}, DType: tensor.Float32, Sbp: NdSbp{S(0)}}, {Name: "def", Shape: tensor.Shape{3, 2}, DType: tensor.Float32, Sbp: NdSbp{S(0)}}},
		Steps: []Statement{
			{Name: "def@B", Args: []string{"def"}, To: NdSbp{B}, Note: "boxed for y"},
			{Name: "y", Args: []string{"x", "def@B"}, Op: Matmul(), OutSbp: NdSbp{S(0)}},
			{Name: "s", Args: []string{"y"}, Op: Reduce(tensor.Sum, tensor.Shape{1, 1}), OutSbp: NdSbp{P(tensor.Sum)}},
		},
		Grad: "s", Results: []string{"x", "def", "y", "s"}, Grads: []string{"x", "def", "y"}, OutDir: "out",
	}
	var b strings.Builder
	if err := Emit(&b, "oneflow", pr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"def_ = global_tensor(np.arange(6, dtype=np.float32).reshape((3, 2)), [flow.sbp.split(0)]).requires_grad_()",
		"# boxed for y\ndef_B = def_.to_global(sbp=[B])\n",
		"y = flow.matmul(x, def_B)  # stridelab: [flow.sbp.split(0)]\ny.retain_grad()",
		"s.to_global(sbp=[B] * 1).sum().backward()",
		`values["def"] = full(def_)`, `values["grad_y"] = full(y.grad) if y.grad is not None else np.zeros((4, 2), np.float32)`,
		`np.save(os.path.join("out", name + ".npy"), value)`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the program lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "s.retain_grad()") {
		t.Errorf("s's gradient is not asked for, yet it is retained:\n%s", b.String())
	}
	pr.Steps[2].Op, pr.Steps[2].OutSbp = Reduce(tensor.MaxAll, tensor.Shape{1, 1}), NdSbp{P(tensor.MaxAll)}
	if err := Emit(&b, "oneflow", pr); err == nil || !strings.Contains(err.Error(), "OneFlow has only partial_sum") {
		t.Errorf("P(max) for OneFlow: %v", err)
	}
	if err := Emit(&b, "jax", pr); err == nil || !strings.Contains(err.Error(), "the engines are oneflow and pytorch") {
		t.Errorf("emit jax: %v", err)
	}
}
