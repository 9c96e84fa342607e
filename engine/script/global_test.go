package script

import (
	"errors"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// A whole program: its steps in order on Python variables made from its
// names, every boxing the planner inserted explicit with a note saying
// why, the engine's autograd with retain_grad for the steps' gradients,
// and every result saved.
func TestWriteWholeProgram(t *testing.T) {
	plan := planned(t, "placement 2\nx = input 4,3 S(0)\ndef = input 3,2 S(0)\ny = matmul x def\ns = sum y 1,1\ngrad s", planner.Greedy)
	got := written(t, plan, OneFlow, Options{OutDir: "out"})
	for _, want := range []string{
		"def_ = global_tensor(np.arange(6, dtype=np.float32).reshape((3, 2)), [flow.sbp.split(0)]).requires_grad_()",
		"# stridelab boxes def S(0) -> B for y: all-gather, 24 bytes sent\ndef_B = def_.to_global(sbp=[B])\n",
		"# line 4: y = matmul x def (stridelab: S(0) x B -> S(0))\ny = flow.matmul(x, def_B)  # stridelab: [flow.sbp.split(0)]\ny.retain_grad()",
		"s.to_global(sbp=[B] * 1).sum().backward()",
		`values["def"] = full(def_)`, `values["grad_y"] = full(y.grad) if y.grad is not None else np.zeros((4, 2), np.float32)`,
		"import os\n", `np.save(os.path.join("out", name + ".npy"), value)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the program lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "x.retain_grad()") {
		t.Errorf("an input, a leaf, has retain_grad:\n%s", got)
	}
}

// An SBP the engine cannot spell names the statement that made it and
// wraps ErrSpelling; DTensor spells it. An unknown engine is ErrEngine.
func TestWriteNamesTheStatement(t *testing.T) {
	// S(0) -> P(max): no bytes; OneFlow's own list has no P(max), so greedy never makes one
	plan := planned(t, "placement 4\nx = input 8,4 S(0)\nm = max x 1,4\ngrad m", planner.Exact)
	var b strings.Builder
	err := Write(&b, plan, OneFlow, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "program: line 3, column 1: m = max x 1,4: emit oneflow: OneFlow has only partial_sum") || !errors.Is(err, ErrSpelling) {
		t.Errorf("oneflow: %v", err)
	}
	if err := Write(&b, plan, DTensor, Options{Path: func(string) string { return "elsewhere" }}); err != nil || !strings.Contains(b.String(), `Partial("max")`) {
		t.Errorf("pytorch: %v\n%s", err, b.String())
	}
	if err := Write(&b, plan, "jax", Options{}); !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), `emit jax: the engines are oneflow, pytorch`) {
		t.Errorf("jax: %v", err)
	}
}

// A `from uniform` input is written for OneFlow and DTensor as the
// uniform() function's array (tensor.UniformPython, written once into
// the file), beside an arange input; without one the file has no such
// function.
func TestWriteFromUniform(t *testing.T) {
	plan := planned(t, "placement 2\nw = input 4,6 S(1) from uniform\nx = input 3,4 B\ny = matmul x w", planner.Greedy)
	for _, e := range []Engine{OneFlow, DTensor} {
		got := written(t, plan, e, Options{})
		for _, want := range []string{"def uniform(name, shape):", `w = global_tensor(uniform("w", (4, 6)).astype(np.float32), `, "x = global_tensor(np.arange(12, dtype=np.float32).reshape((3, 4)), "} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: the program lacks %q:\n%s", e, want, got)
			}
		}
		if n := strings.Count(got, "def uniform("); n != 1 {
			t.Errorf("%s: uniform() is defined %d times, want once", e, n)
		}
	}
	if got := written(t, planned(t, "placement 2\nx = input 3,4 B", planner.Greedy), DTensor, Options{}); strings.Contains(got, "def uniform(") {
		t.Errorf("a program without from uniform defines uniform():\n%s", got)
	}
}

// A batched matmul is written as the libraries' matmul, which broadcasts
// batch dims as NumPy's does: torch.matmul and flow.matmul.
func TestWriteBatchedMatmul(t *testing.T) {
	plan := planned(t, "placement 2\nq = input 2,8,16 S(0)\nk = input 16,8 B\ns = matmul q k", planner.Greedy)
	for e, want := range map[Engine]string{DTensor: "s = torch.matmul(q, k)  # stridelab: [Shard(0)]", OneFlow: "s = flow.matmul(q, k)  # stridelab: [flow.sbp.split(0)]"} {
		if got := written(t, plan, e, Options{}); !strings.Contains(got, want) {
			t.Errorf("%s: want %q in\n%s", e, want, got)
		}
	}
}

// With Result, the program is about one tensor, as the single-op
// commands write it: the forward without notes, the inputs from their
// files in the dtype asked for, and that tensor's layout printed beside
// the plan's and its value saved to Out.
func TestWriteResult(t *testing.T) {
	plan := planned(t, "placement 2\na = input 4,3 S(0)\nb = input 3 B\ny = add a b", planner.Greedy)
	got := written(t, plan, DTensor, Options{Result: "y", Out: "y.npy", Files: map[string]string{"a": "a.npy"}, DType: tensor.Int32})
	want := `a = global_tensor(np.load("a.npy").astype(np.int32), [Shard(0)])
b = global_tensor(np.arange(3, dtype=np.int32).reshape((3,)), [Replicate()])
y = a + b
print("placements:", y.placements)  # stridelab: [Shard(0)]
full = y.full_tensor().numpy()
if dist.get_rank() == 0:
    np.save("y.npy", full)
`
	if !strings.HasSuffix(got, want) || strings.Contains(got, "# line") || strings.Contains(got, "values = {}") {
		t.Errorf("got\n%s\nwant it to end with\n%s", got, want)
	}
	var b strings.Builder
	if err := Write(&b, plan, OneFlow, Options{Result: "z"}); err == nil || !strings.Contains(err.Error(), `no tensor "z"`) {
		t.Errorf("a result the plan lacks: %v", err)
	}
}
