package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// The example plan, as JSON with its documented keys.
func TestSbpPlanJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sbp", "plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3)", "--placement", "2", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	var plan struct {
		OutSbp string `json:"out_sbp"`
		Ranks  []struct {
			Rank       int   `json:"rank"`
			InShape    []int `json:"in_shape"`
			InStride   []int `json:"in_stride"`
			ExpandSize []int `json:"expand_size"`
			OutStride  []int `json:"out_stride"`
			OutShape   []int `json:"out_shape"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &plan); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plan)
	want := `{"out_sbp":"S(4)","ranks":[` +
		`{"rank":0,"in_shape":[4,3,1,1],"in_stride":[3,1,1,1],"expand_size":[2,4,3,4,1],"out_stride":[0,3,1,0,1],"out_shape":[2,4,3,4,1]},` +
		`{"rank":1,"in_shape":[4,3,1,1],"in_stride":[3,1,1,1],"expand_size":[2,4,3,4,1],"out_stride":[0,3,1,0,1],"out_shape":[2,4,3,4,1]}]}`
	if string(b) != want {
		t.Errorf("plan\n got %s\nwant %s", b, want)
	}
}

func TestSbpBoxingJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sbp", "boxing", "--shape", "25,33", "--from", "S(0)", "--to", "S(1)", "--placement", "4", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	var plan struct {
		Collective string `json:"collective"`
		Ranks      []struct {
			SendBytes int `json:"send_bytes"`
			RecvBytes int `json:"recv_bytes"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &plan); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plan)
	want := `{"collective":"all-to-all","ranks":[{"send_bytes":672,"recv_bytes":648},{"send_bytes":600,"recv_bytes":608},{"send_bytes":600,"recv_bytes":608},{"send_bytes":600,"recv_bytes":608}]}`
	if string(b) != want {
		t.Errorf("boxing\n got %s\nwant %s", b, want)
	}
}

// sbp boxing --in takes the shape from the file when --shape is not
// given, a scalar's included (spelt (), which reads back: an empty
// --shape would be a flag not given); sbp run's check on 0/0 = NaN at
// [0] says the sharded NaN equals the single device's.
func TestSbpShapeFromFileAndNaN(t *testing.T) {
	dir := t.TempDir()
	scalar, _ := tensor.FromSlice(tensor.Shape{}, []float32{3.5})
	x := writeNpy(t, dir, "x.npy", mustArange(t, 6))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sbp", "boxing", "--in", writeNpy(t, dir, "s.npy", scalar), "--from", "B", "--to", "P", "--placement", "2"},
			"the gathered result, laid out as P(sum), equals the input"},
		{[]string{"sbp", "boxing", "--in", x, "--from", "S(0)", "--to", "B", "--placement", "2"},
			"boxing float32 [6] from S(0) to B"},
		{[]string{"sbp", "run", "--op", "div", "--in", x, "--b", x, "--sbp", "S(0)", "--b-sbp", "S(0)", "--placement", "2"},
			"the gathered result equals the single-device result"},
	} {
		if out := runCLI(t, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("stridelab %s:\n%s\nwant %q in it", strings.Join(c.args, " "), out, c.want)
		}
	}
}

// sevenByThree writes a [7 3] float32 .npy of (i−10)/3, negatives, zero
// and positives, which splits unevenly over 2 and 3 devices; it returns
// its path.
func sevenByThree(t *testing.T) string {
	v := make([]float32, 21)
	for i := range v {
		v[i] = float32(i-10) / 3
	}
	xt, _ := tensor.FromSlice(tensor.Shape{7, 3}, v)
	return writeNpy(t, t.TempDir(), "x.npy", xt)
}

// The unary ops on the one-op commands: neg passes P(sum); exp of a
// P(sum) is refused under --strict saying why (it is not linear), and
// boxed otherwise; sbp run checks a tanh of an uneven split, and a log
// of a P(max) (NaN and -Inf where its values are not positive), against
// the single device.
func TestSbpUnaryOps(t *testing.T) {
	x := sevenByThree(t)
	cliSays(t, []cliCase{
		{[]string{"sbp", "plan", "--op", "neg", "--shape", "7,3", "--sbp", "P", "--placement", "3"}, "in P(sum) -> out P(sum)"},
		{[]string{"sbp", "plan", "--op", "relu", "--shape", "7,3", "--sbp", "P(max)", "--placement", "3"}, "in P(max) -> out P(max)"},
		{[]string{"sbp", "plan", "--op", "exp", "--shape", "7,3", "--sbp", "P", "--placement", "3"}, "boxed"},
		{[]string{"sbp", "run", "--op", "tanh", "--in", x, "--sbp", "S(1)", "--placement", "3"}, "the gathered result equals the single-device result"},
		{[]string{"sbp", "run", "--op", "log", "--in", x, "--sbp", "P(max)", "--placement", "2"}, "the gathered result equals the single-device result"},
	})
	failsSaying(t, []string{"sbp", "plan", "--op", "exp", "--shape", "7,3", "--sbp", "P", "--placement", "3", "--strict"},
		"exp(x₁ + x₂) is not exp(x₁) + exp(x₂): exp is not linear")
}

// Softmax on the one-op commands: a split on another dim passes; a split
// along its dim is refused under --strict saying why, and boxed
// otherwise; sbp run checks an uneven split against the single device.
func TestSbpSoftmax(t *testing.T) {
	x := sevenByThree(t)
	cliSays(t, []cliCase{
		{[]string{"sbp", "plan", "--op", "softmax", "--shape", "7,3", "--sbp", "S(0)", "--placement", "3"}, "in S(0) -> out S(0)"},
		{[]string{"sbp", "plan", "--op", "softmax", "--dim", "0", "--shape", "7,3", "--sbp", "S(1)", "--placement", "3"}, "in S(1) -> out S(1)"},
		{[]string{"sbp", "plan", "--op", "softmax", "--shape", "7,3", "--sbp", "S(1)", "--placement", "3"}, "boxed"},
		{[]string{"sbp", "run", "--op", "softmax", "--dim", "-1", "--in", x, "--sbp", "S(0)", "--placement", "3"}, "the gathered result equals the single-device result"},
		{[]string{"sbp", "run", "--op", "softmax", "--dim", "0", "--in", x, "--sbp", "S(0)", "--placement", "2"}, "the gathered result equals the single-device result"},
	})
	failsSaying(t, []string{"sbp", "plan", "--op", "softmax", "--shape", "7,3", "--sbp", "S(1)", "--placement", "3", "--strict"},
		"softmax along 1 needs whole lines along dim 1")
}

// cliCase is a command line and what its output must say.
type cliCase struct {
	args []string
	want string
}

// cliSays runs each case's command and checks that its output says want.
func cliSays(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		if out := runCLI(t, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("stridelab %s:\n%s\nwant %q in it", strings.Join(c.args, " "), out, c.want)
		}
	}
}

// failsSaying runs args and checks that it fails saying want.
func failsSaying(t *testing.T, args []string, want string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("stridelab %s: exit %d, %q; want a failure saying %q", strings.Join(args, " "), code, stderr.String(), want)
	}
}

// Every emitted program is valid Python (checked with Python's own
// parser) and spells the placement, the SBPs and the op for its engine.
func TestSbpEmit(t *testing.T) {
	python := requireNumPy(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3)", "--placement", "2", "--emit", "oneflow"},
			[]string{`flow.placement("cpu", ranks=[0, 1])`, "flow.sbp.split(3)", "x.expand(2, 4, 3, 4, 2)", "stridelab: [flow.sbp.split(4)]"}},
		{[]string{"plan", "--op", "expand", "--shape", "4,3,1,2", "--size", "2,4,3,4,2", "--sbp", "S(3)", "--placement", "2", "--emit", "pytorch"},
			[]string{`DeviceMesh("cpu", [0, 1])`, "[Shard(3)]", "x.expand(2, 4, 3, 4, 2)", "stridelab: [Shard(4)]", "torchrun --nproc_per_node 2"}},
		{[]string{"plan", "--op", "matmul", "--shape", "4,6", "--b-shape", "6,8", "--sbp", "(S(1), B)", "--b-sbp", "(S(0), S(1))", "--placement", "cuda:[[0,1],[2,3]]", "--emit", "oneflow"},
			[]string{`ranks=[[0, 1], [2, 3]]`, "flow.matmul(a, b)", "stridelab: [flow.sbp.partial_sum, flow.sbp.split(1)]"}},
		{[]string{"plan", "--op", "reduce", "--reduce", "max", "--to", "1,3", "--shape", "4,3", "--sbp", "S(0)", "--placement", "4", "--dtype", "int32", "--emit", "pytorch"},
			[]string{"np.int32", "x.amax(dim=(0,), keepdim=True).reshape(1, 3)", `Partial("max")`}},
		{[]string{"plan", "--op", "max", "--shape", "4,3", "--b-shape", "3", "--sbp", "S(0)", "--placement", "4", "--emit", "pytorch"},
			[]string{"torch.maximum(a, b)", "[Shard(0)]"}},
		{[]string{"plan", "--op", "eq", "--shape", "4,3", "--b-shape", "3", "--sbp", "S(0)", "--placement", "4", "--emit", "oneflow"},
			[]string{"flow.eq(a, b).to(a.dtype)", "stridelab: [flow.sbp.split(0)]"}},
		{[]string{"plan", "--op", "rsqrt", "--shape", "4,3", "--sbp", "S(1)", "--placement", "3", "--emit", "oneflow"},
			[]string{"flow.rsqrt(x)", "stridelab: [flow.sbp.split(1)]"}},
		{[]string{"plan", "--op", "softmax", "--dim", "-1", "--shape", "4,3", "--sbp", "S(0)", "--placement", "2", "--emit", "pytorch"},
			[]string{"torch.softmax(x, dim=1)", "[Shard(0)]"}},
		{[]string{"plan", "--op", "softmax", "--dim", "0", "--shape", "4,3", "--sbp", "S(1)", "--placement", "3", "--emit", "oneflow"},
			[]string{"flow.softmax(x, dim=0)", "stridelab: [flow.sbp.split(1)]"}},
		{[]string{"plan", "--op", "neg", "--shape", "4,3", "--sbp", "P", "--placement", "2", "--emit", "pytorch"},
			[]string{"-x", `[Partial("sum")]`}},
		{[]string{"boxing", "--shape", "25,33", "--from", "S(0)", "--to", "S(1)", "--placement", "4", "--emit", "oneflow"},
			[]string{"y = x.to_global(sbp=[flow.sbp.split(1)])"}},
		{[]string{"boxing", "--shape", "16,32", "--from", "(S(0), S(1))", "--to", "(P(min), B)", "--placement", "[[0,1],[2,3]]", "--emit", "pytorch"},
			[]string{`y = x.redistribute(mesh, [Partial("min"), Replicate()])`}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"sbp"}, c.args...), &stdout, &stderr); code != 0 {
			t.Errorf("sbp %v: %s", c.args, stderr.String())
			continue
		}
		prog := stdout.String()
		for _, w := range c.want {
			if !strings.Contains(prog, w) {
				t.Errorf("sbp %v: the program lacks %q:\n%s", c.args, w, prog)
			}
		}
		file := filepath.Join(dir, "prog.py")
		os.WriteFile(file, stdout.Bytes(), 0o644)
		if out, err := exec.Command(python, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", file).CombinedOutput(); err != nil {
			t.Errorf("sbp %v: not valid Python: %v\n%s\n%s", c.args, err, out, prog)
		}
	}
}
