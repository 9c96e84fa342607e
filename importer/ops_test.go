package importer

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestDocListsEveryOp: docs/import.md's table names every aten op the
// importer writes, and no op it does not.
func TestDocListsEveryOp(t *testing.T) {
	doc, err := os.ReadFile("../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range opTable {
		if name == "getitem" {
			continue
		}
		if !strings.Contains(string(doc), "`"+strings.TrimPrefix(name, "aten.")+"`") {
			t.Errorf("docs/import.md does not list %s", name)
		}
	}
}

// A trace as trace.py prints it: x [4, 6] (an example) through a
// Linear with a bias, split in three along the last dim, GELU, a
// log_softmax and the mean of a target's log-probability.
const smallTrace = `{
 "loss": "getitem_3",
 "parameters": [
  {"node": "p0", "path": "fc.weight", "shape": [6, 6], "dtype": "float32", "values": "p0.npy"},
  {"node": "p1", "path": "fc.bias", "shape": [6], "dtype": "float32", "values": "p1.npy"}],
 "examples": [
  {"node": "x", "name": "x", "shape": [4, 6], "dtype": "float32", "values": "x.npy"},
  {"node": "y", "name": "y", "shape": [4], "dtype": "int64", "values": "y.npy"}],
 "constants": [],
 "nodes": [
  {"name": "t", "target": "aten.t.default", "args": [{"ref": "p0"}], "kwargs": {}, "shape": [6, 6], "module": "fc"},
  {"name": "addmm", "target": "aten.addmm.default", "args": [{"ref": "p1"}, {"ref": "x"}, {"ref": "t"}], "kwargs": {}, "shape": [4, 6], "module": "fc"},
  {"name": "split", "target": "aten.split.Tensor", "args": [{"ref": "addmm"}, 2, 1], "kwargs": {}, "shape": null, "module": ""},
  {"name": "getitem", "target": "getitem", "args": [{"ref": "split"}, 0], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "getitem_1", "target": "getitem", "args": [{"ref": "split"}, 2], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "cat", "target": "aten.cat.default", "args": [[{"ref": "getitem"}, {"ref": "getitem_1"}], -1], "kwargs": {}, "shape": [4, 4], "module": ""},
  {"name": "slice_1", "target": "aten.slice.Tensor", "args": [{"ref": "cat"}, 1, 1, -1], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "add", "target": "aten.add.Tensor", "args": [{"ref": "slice_1"}, {"ref": "getitem_1"}], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "gelu", "target": "aten.gelu.default", "args": [{"ref": "add"}], "kwargs": {"approximate": "tanh"}, "shape": [4, 2], "module": "act"},
  {"name": "mul", "target": "aten.mul.Tensor", "args": [{"ref": "gelu"}, 2.0], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "_log_softmax", "target": "aten._log_softmax.default", "args": [{"ref": "mul"}, 1, false], "kwargs": {}, "shape": [4, 2], "module": ""},
  {"name": "nll", "target": "aten.nll_loss_forward.default", "args": [{"ref": "_log_softmax"}, {"ref": "y"}, null, 1, -100], "kwargs": {}, "shape": null, "module": ""},
  {"name": "getitem_3", "target": "getitem", "args": [{"ref": "nll"}, 0], "kwargs": {}, "shape": [], "module": ""}]
}`

// TestLowerATrace: the statements a trace becomes, on two devices with
// data parallelism: the parameters B from their files, the float example
// split by rows, the integer one a constant; each op line's comment its
// module path; the program parses and ends with grad of the loss.
func TestLowerATrace(t *testing.T) {
	var tr traced
	if err := json.Unmarshal([]byte(smallTrace), &tr); err != nil {
		t.Fatal(err)
	}
	p, err := sbp.ParsePlacement("2")
	if err != nil {
		t.Fatal(err)
	}
	res, files, err := write(&tr, Request{Placement: p, Source: "stridelab import (test)", Class: "Small"}, true)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(res.Text), "\n")
	has := func(prefix, comment string) {
		t.Helper()
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, "# "+comment) {
				return
			}
		}
		t.Errorf("no line %q … # %s in\n%s", prefix, comment, res.Text)
	}
	if !slices.Contains(lines, "placement 2") {
		t.Errorf("no line placement 2 in\n%s", res.Text)
	}
	has("fc_weight = input 6,6 B from fc_weight.npy", "fc.weight")
	has("x = input 4,6 S(0) from x.npy", "example x (float32)")
	has("y = const 4 S(0) from y.npy", "example y (int64)")
	has("t = transpose fc_weight", "fc")
	has("addmm_mm = matmul x t", "fc")
	has("addmm = add addmm_mm fc_bias", "fc")
	has("split_0 = slice addmm 1 0 2", "Small")
	has("split_2 = slice addmm 1 4 6", "Small")
	has("cat_2 = cat split_0 split_2 1", "Small") // cat is a word of the language
	has("slice_1 = slice cat_2 1 1 3", "Small")
	has("gelu_tanh = tanh gelu_u", "act")
	has("mul_2 = scale gelu 2", "Small") // mul is a word of the language
	has("nll_ignored = eq y c_m100", "Small")
	has("nll_count = sum nll_counted ()", "Small")
	has("nll = div nll_total nll_count", "Small")
	if last := lines[len(lines)-1]; last != "grad nll" {
		t.Errorf("the last line is %q, want grad nll", last)
	}
	// the pieces are slices (piece 1, unread, is not written)
	if slices.ContainsFunc(lines, func(s string) bool { return strings.HasPrefix(s, "split_1 ") }) {
		t.Errorf("piece 1, which nothing reads, was written:\n%s", res.Text)
	}
	if files.renames["p0.npy"] != "fc_weight.npy" || files.renames["y.npy"] != "y.npy" {
		t.Errorf("renames %v", files.renames)
	}
}

// TestLowerInBF16WithAnOptimizer: --precision bf16 writes the float
// inputs and constants bf16 (the integer ones as they were), and
// --optimizer its statement after the inputs; the program parses with
// them.
func TestLowerInBF16WithAnOptimizer(t *testing.T) {
	var tr traced
	if err := json.Unmarshal([]byte(smallTrace), &tr); err != nil {
		t.Fatal(err)
	}
	p, _ := sbp.ParsePlacement("2")
	opt, _ := program.ParseOptimizer("adam zero1")
	res, _, err := write(&tr, Request{Placement: p, Source: "stridelab import (test)", Class: "Small", Precision: tensor.BF16, Optimizer: opt}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fc_weight = input 6,6 B bf16 from fc_weight.npy", "x = input 4,6 S(0) bf16 from x.npy", "y = const 4 S(0) bf16 from y.npy", "optimizer adam zero1"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in\n%s", want, res.Text)
		}
	}
	if o := res.Program.Optimizer; o == nil || o.String() != "optimizer adam zero1" || res.Program.Lookup("fc_weight").Precision != tensor.BF16 {
		t.Errorf("the program reads back optimizer %v, fc_weight %v", o, res.Program.Lookup("fc_weight").Precision)
	}
}

// TestLowerAuto: --layouts auto writes every parameter auto, a
// --layout PATTERN=SBP still wins where it matches, PATTERN=auto makes
// an example auto; the program parses with them.
func TestLowerAuto(t *testing.T) {
	var tr traced
	if err := json.Unmarshal([]byte(smallTrace), &tr); err != nil {
		t.Fatal(err)
	}
	p, _ := sbp.ParsePlacement("2")
	bias, _ := ParseLayout("fc.bias=B")
	x, _ := ParseLayout("x=auto")
	if !x.Auto || x.Sbp != nil {
		t.Fatalf("ParseLayout(x=auto) = %+v", x)
	}
	res, _, err := write(&tr, Request{Placement: p, Source: "stridelab import (test)", Class: "Small", AutoParameters: true, Layouts: []Layout{bias, x}}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fc_weight = input 6,6 auto from fc_weight.npy", "fc_bias = input 6 B from fc_bias.npy", "x = input 4,6 auto from x.npy"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in\n%s", want, res.Text)
		}
	}
	if !res.Program.Lookup("fc_weight").Auto || res.Program.Lookup("fc_bias").Auto {
		t.Errorf("the program reads fc_weight auto %v, fc_bias auto %v", res.Program.Lookup("fc_weight").Auto, res.Program.Lookup("fc_bias").Auto)
	}
}

// TestLowerRefusals: an op outside the table and an unequal split are
// refused in one line naming the module path.
func TestLowerRefusals(t *testing.T) {
	p, _ := sbp.ParsePlacement("1")
	for _, c := range []struct{ node, want string }{
		{`{"name": "c", "target": "aten.cumsum.default", "args": [{"ref": "x"}, 0], "kwargs": {}, "shape": [4, 6], "module": "h.0"}`,
			"import: h.0: aten.cumsum is not supported (docs/import.md lists the ops the importer writes)"},
		{`{"name": "s", "target": "aten.split_with_sizes.default", "args": [{"ref": "x"}, [2, 3], 1], "kwargs": {}, "shape": null, "module": "attn"}`,
			"import: attn: aten.split_with_sizes.default is not supported (pieces of sizes [2 3] along dim 1 of [4 6] do not add up to 6)"},
		{`{"name": "s", "target": "aten.slice.Tensor", "args": [{"ref": "x"}, 1, 0, 6, 2], "kwargs": {}, "shape": [4, 3], "module": "attn"}`,
			"import: attn: aten.slice.Tensor is not supported (a step of 2; the importer writes step 1)"},
		{`{"name": "g", "target": "aten.gelu.default", "args": [{"ref": "x"}], "kwargs": {"approximate": "sigmoid"}, "shape": [4, 6], "module": "mlp"}`,
			"import: mlp: aten.gelu.default is not supported (the approximation sigmoid; torch's are none (erf) and tanh)"},
	} {
		var tr traced
		src := `{"loss": "c", "parameters": [], "constants": [], "examples": [{"node": "x", "name": "x", "shape": [4, 6], "dtype": "float32"}], "nodes": [` + c.node + `]}`
		if err := json.Unmarshal([]byte(src), &tr); err != nil {
			t.Fatal(err)
		}
		_, _, err := write(&tr, Request{Placement: p}, true)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

// TestLowerOnEveryMesh: what --placement changes, on 1 device, 2 and a
// 2×2 mesh: the placement line and the default layouts' words, the
// parameters whole (B on every mesh dim) and the examples split by rows
// on every mesh dim (data parallelism), a --layout's SBP as given.
func TestLowerOnEveryMesh(t *testing.T) {
	var tr traced
	if err := json.Unmarshal([]byte(smallTrace), &tr); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ placement, whole, split, layout string }{
		{"1", "B", "S(0)", "S(1)"},
		{"2", "B", "S(0)", "S(1)"},
		{"[[0,1],[2,3]]", "(B, B)", "(S(0), S(0))", "(B, S(1))"},
	} {
		p, err := sbp.ParsePlacement(c.placement)
		if err != nil {
			t.Fatal(err)
		}
		nd, err := sbp.ParseNd(c.layout)
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := write(&tr, Request{Placement: p, Class: "Small", Layouts: []Layout{{Pattern: "fc.w*", Sbp: nd}}}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"placement " + c.placement + "\n", "fc_weight = input 6,6 " + c.layout + " from", "fc_bias = input 6 " + c.whole + " from",
			"x = input 4,6 " + c.split + " from", "y = const 4 " + c.split + " from"} {
			if !strings.Contains(res.Text, want) {
				t.Errorf("on %s: no %q in\n%s", c.placement, want, res.Text)
			}
		}
	}
}

// TestLowerAnIgnoredClass: an ignore_index that is one of the classes
// (here 1 of 2) is masked out of the one-hot rows, and the mean divides
// by the rows counted.
func TestLowerAnIgnoredClass(t *testing.T) {
	var tr traced
	if err := json.Unmarshal([]byte(strings.Replace(smallTrace, "null, 1, -100]", "null, 1, 1]", 1)), &tr); err != nil {
		t.Fatal(err)
	}
	p, _ := sbp.ParsePlacement("2")
	res, _, err := write(&tr, Request{Placement: p, Class: "Small"}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nll_ignored = eq y c_1", "nll_onehot_counted = mul nll_onehot nll_counted_col", "nll = div nll_total nll_count"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in\n%s", want, res.Text)
		}
	}
}

// TestLowerAGatherAlongTheLastDim: torch.gather along the last dim (a
// loss written by hand) is written as one-hot rows of its index, a
// product and a sum over the classes; along another dim it is refused.
func TestLowerAGatherAlongTheLastDim(t *testing.T) {
	trace := func(d int) string {
		return `{"loss": "g", "parameters": [], "constants": [], "examples": [
  {"node": "x", "name": "x", "shape": [6, 5], "dtype": "float32"},
  {"node": "t", "name": "t", "shape": [6, 1], "dtype": "int64"}],
 "nodes": [{"name": "g", "target": "aten.gather.default", "args": [{"ref": "x"}, ` + strconv.Itoa(d) + `, {"ref": "t"}], "kwargs": {}, "shape": [6, 1], "module": "loss"}]}`
	}
	p, _ := sbp.ParsePlacement("1")
	var tr traced
	if err := json.Unmarshal([]byte(trace(-1)), &tr); err != nil {
		t.Fatal(err)
	}
	res, _, err := write(&tr, Request{Placement: p, Class: "Hand"}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"t = const 6,1 S(0)", "g_onehot = eq g_col range_5", "g_picked = mul g_rows g_onehot", "g_sum = sum g_picked 6,1,1"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("no %q in\n%s", want, res.Text)
		}
	}
	tr = traced{}
	if err := json.Unmarshal([]byte(trace(0)), &tr); err != nil {
		t.Fatal(err)
	}
	if _, _, err := write(&tr, Request{Placement: p}, true); err == nil || err.Error() != "import: loss: aten.gather.default is not supported (a gather along dim [0] of [6 5]; the importer writes the last dim's)" {
		t.Errorf("a gather along dim 0: %v", err)
	}
}
