package script

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/sbp/planner"
)

// A torch.distributed file holds the engine's local arithmetic and the
// collectives, spells every step with this rank's literals, reads the
// inputs Files names, gathers and saves every named tensor and gradient,
// and is valid Python.
func TestWriteTorch(t *testing.T) {
	plan := planned(t, "placement 2\nx = input 5,3 S(0)\nw = input 3,2 S(0) from uniform\ny = matmul x w\ns = sum y 1,1\ngrad s", planner.Greedy)
	got := written(t, plan, Torch, Options{Command: "stridelab sbp program …", OutDir: "out", Files: map[string]string{"x": "x.npy"}, Result: "y"})
	for _, want := range []string{
		"Written by: stridelab sbp program …\n",
		torch.OpsPython, "def all_gather(t, dim, axis, sizes, after, skip):", "def uniform(name, shape):",
		"GROUPS = [[[0, 1]]]", `OUT_DIR = "out"`,
		`V["x"] = shard(load("x.npy", [5, 3]), [[0, 0], [3, 0]][RANK], [[3, 3], [2, 3]][RANK], True, "sum")`,
		`V["w"] = shard(torch.from_numpy(uniform("w", [3, 2])).to(DEV), [[0, 0], [2, 0]][RANK], [[2, 2], [1, 2]][RANK], True, "sum")`,
		"# step 3: w@B = box w   S(0) -> B: all-gather along mesh dim 0\n",
		"t = all_gather(t, dim=0, axis=0, sizes=[2, 1], after=[3, 2], skip=False)",
		`V["y"] = matmul(V["x"], V["w@B"])`,
		`save(args, "grad_w", V["grad_w@gathered"])`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the file lacks %q:\n%s", want, got)
		}
	}
	if py, err := exec.LookPath("python3"); err == nil {
		file := filepath.Join(t.TempDir(), "plan.py")
		os.WriteFile(file, []byte(got), 0o644)
		if out, err := exec.Command(py, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", file).CombinedOutput(); err != nil {
			t.Errorf("not valid Python: %v\n%s", err, out)
		}
	}
}

// Values held by one step (t = box y (B, B) changes nothing, so grad_y
// and grad_t are one step) are gathered in program order, the same
// every time.
func TestWriteTorchGatherOrder(t *testing.T) {
	plan := planned(t, "placement [[0,1],[2,3]]\nx = input 6,5 (S(0), S(1))\nw = input 5,3 (B, S(0))\ny = matmul x w\nt = box y (B, B)\ne = expand t 2,6,3\ns = sum e 1,1,1\ngrad s", planner.Greedy)
	first := written(t, plan, Torch, Options{})
	if i, j := strings.Index(first, `save(args, "grad_y"`), strings.Index(first, `save(args, "grad_t"`); i < 0 || j < i {
		t.Errorf("grad_y is saved at %d, grad_t at %d; want grad_y first:\n%s", i, j, first)
	}
	for range 5 {
		if again := written(t, plan, Torch, Options{}); again != first {
			t.Fatalf("the file differs between two writes")
		}
	}
}
