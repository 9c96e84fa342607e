package program

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

func TestParseTheIssuesProgram(t *testing.T) {
	src := `placement 4                      # four devices
x = input 64,32 S(0)
w = input 32,16 B
y = matmul x w; b = input 16 B
z = add y b
e = expand z 2,64,16
s = sum e 1,1,1
t = box y B
grad s`
	p, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.Stmts); got != 9 {
		t.Fatalf("%d statements, want 9", got)
	}
	y := p.Lookup("y")
	if y.Line != 4 || y.Col != 1 || y.Shape.String() != "[64 16]" || y.Word != "matmul" {
		t.Errorf("y = %+v, want line 4 column 1, [64 16], matmul", y)
	}
	b := p.Lookup("b")
	if b.Line != 4 || b.Col != 17 || b.Text != "b = input 16 B" {
		t.Errorf("b at line %d column %d %q, want line 4 column 17", b.Line, b.Col, b.Text)
	}
	if s := p.Lookup("s"); s.Shape.String() != "[1 1 1]" {
		t.Errorf("s is %v, want [1 1 1]", s.Shape)
	}
	if p.Grad == nil || p.Grad.Name != "s" {
		t.Errorf("grad %+v, want grad s", p.Grad)
	}
	if in := p.Inputs(); len(in) != 3 || in[1].Name != "w" || in[1].Sbp.String() != "B" {
		t.Errorf("inputs %v", in)
	}
}

func TestParseInputFromFileAndMeshSbp(t *testing.T) {
	p, err := Parse("placement [[0,1],[2,3]]\nw = input 32,16 (S(0), B) from data/w 1.npy\nm = max w 1,16")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Lookup("w")
	if w.From != "data/w 1.npy" || w.Sbp.String() != "(S(0), B)" {
		t.Errorf("w from %q as %v", w.From, w.Sbp)
	}
	if m := p.Lookup("m"); m.Shape.String() != "[1 16]" || m.Op.Name() != "reduce" {
		t.Errorf("m = max w 1,16 parsed as %v %v", m.Op, m.Shape)
	}
}

// TestParseInputFromUniform: from uniform marks the input (no file), the
// word is exact (a file must end in .npy), and the SBP before it parses
// as without it.
func TestParseInputFromUniform(t *testing.T) {
	p, err := Parse("placement [[0,1],[2,3]]\nw = input 32,128 (B, S(1)) from uniform\nx = input 4,32 (B, B) from uniform.npy\ny = input 4,32 (B, B)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, sbp string
		uniform         bool
	}{{"w", "", "(B, S(1))", true}, {"x", "uniform.npy", "(B, B)", false}, {"y", "", "(B, B)", false}} {
		if s := p.Lookup(c.name); s.Uniform != c.uniform || s.From != c.from || s.Sbp.String() != c.sbp {
			t.Errorf("%s: uniform %v, from %q, as %v; want %v, %q, %s", s.Text, s.Uniform, s.From, s.Sbp, c.uniform, c.from, c.sbp)
		}
	}
}

// TestParseUnaryAndMean: the unary ops take one name and keep its
// shape; mean takes a name and a target, as sum does, and divides by the
// elements each output averages; max A B, with B a name, stays the
// elementwise max (ReLU by hand).
func TestParseUnaryAndMean(t *testing.T) {
	p, err := Parse("placement [[0,1],[2,3]]\nh = input 8,16 (S(0), B)\nzero = input 1 (B, B)\nr = max h zero\ny = relu h\ne = exp y\nm = mean e 1,16\nl = mean e ()\nn = neg m\ngrad n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, word, op, shape string }{
		{"r", "max", "max", "[8 16]"},
		{"y", "relu", "relu", "[8 16]"},
		{"e", "exp", "exp", "[8 16]"},
		{"m", "mean", "mean to [1 16]", "[1 16]"},
		{"l", "mean", "mean to []", "[]"},
		{"n", "neg", "neg", "[1 16]"},
	} {
		s := p.Lookup(c.name)
		if s.Word != c.word || s.Op.String() != c.op || s.Shape.String() != c.shape {
			t.Errorf("%s: %s %v %v, want %s %s %s", c.name, s.Word, s.Op, s.Shape, c.word, c.op, c.shape)
		}
	}
	for _, w := range []string{"exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu"} {
		p, err := Parse("placement 2; x = input 4,3 S(1); y = " + w + " x")
		if err != nil || p.Lookup("y").Op.Name() != w {
			t.Errorf("y = %s x: %v", w, err)
		}
	}
}

// TestParseErrors: every fault is one line naming the line, the column,
// the statement and what is wrong, with the shapes involved.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "program: the program is empty: it needs a placement and at least one input, e.g. placement 4; x = input 8,4 S(0)"},
		{"placement 4", "program: the program has no input: define one, e.g. x = input 8,4 S(0)"},
		{"x = input 4 B", "program: line 1, column 1: x = input 4 B: no placement yet: start the program with one, e.g. placement 4"},
		{"placement 4\nplacement 2", "program: line 2, column 1: placement 2: the placement is given twice"},
		{"placement 0-", "program: line 1, column 1: placement 0-: "},
		{"placement 4\nx = input 8,4 S(0)\nx = input 4 B", "program: line 3, column 1: x = input 4 B: x is already defined (line 2): give the result another name"},
		{"placement 4\nx = input 8,4 S(0)\ny = matmul x w", "program: line 3, column 1: y = matmul x w: w is not defined"},
		{"placement 4\nx = input 8,4 S(0)\ny = add y x", "program: line 3, column 1: y = add y x: y is used before it is defined"},
		{"placement 4\nx = input 8,4 S(0)\nw = input 5,3 B\ny = matmul x w", "program: line 4, column 1: y = matmul x w: matmul [8 4] x [5 3]: a has 4 columns but b has 5 rows"},
		{"placement 4\nx = input 8,4 S(0)\nw = input 3 B\ny = add x w", "program: line 4, column 1: y = add x w: broadcast [8 4] and [3]: "},
		{"placement 4\nx = input 8,4 S(2)", "program: line 2, column 1: x = input 8,4 S(2): "},
		{"placement [[0,1],[2,3]]\nx = input 8,4 S(0)", "program: line 2, column 1: x = input 8,4 S(0): "},
		{"placement 4\nx = input 8,4 Q", "program: line 2, column 1: x = input 8,4 Q: "},
		{"placement 4\nx = input 8,4", "program: line 2, column 1: x = input 8,4: input needs an SBP after its shape, e.g. S(0), B, or (S(0), B) on a 2-D mesh"},
		{"placement 4\nx = input 8,4 B from", "program: line 2, column 1: x = input 8,4 B from: from needs uniform or a .npy file, e.g. from uniform, from w.npy"},
		{"placement 4\nx = input 8,4 B from unifrom", `program: line 2, column 1: x = input 8,4 B from unifrom: from takes uniform (values spread over [-1, 1)) or a .npy file, not "unifrom"`},
		{"placement 4\nx = input 8,4 B from w.csv", `program: line 2, column 1: x = input 8,4 B from w.csv: from takes uniform (values spread over [-1, 1)) or a .npy file, not "w.csv"`},
		{"placement 4\nx = input 8,4 from uniform", "program: line 2, column 1: x = input 8,4 from uniform: input needs an SBP after its shape, e.g. S(0), B, or (S(0), B) on a 2-D mesh"},
		{"placement 4\nx = input 8,4 B\ny = conv x", `program: line 3, column 1: y = conv x: unknown op "conv"; the ops are input, matmul, gather, add, sub, mul, div, max, min, eq, exp, log, neg, sqrt, rsqrt, tanh, relu, erf, square, softmax, scale, expand, repeat, transpose, permute, slice, cat, reshape, sum, mean, box (and grad NAME)`},
		{"placement 4\nx = input 8,4 B\ny = exp", "program: line 3, column 1: y = exp: exp takes one name: exp X"},
		{"placement 4\nx = input 8,4 B\ny = tanh x x", "program: line 3, column 1: y = tanh x x: tanh takes one name: tanh X"},
		{"placement 4\nx = input 8,4 B\ny = relu z", "program: line 3, column 1: y = relu z: z is not defined"},
		{"placement 4\nx = input 8,4 B\ny = mean x", "program: line 3, column 1: y = mean x: mean takes a name and a target shape: mean X 1,3,1"},
		{"placement 4\nx = input 8,4 B\ny = mean x 1,3", "program: line 3, column 1: y = mean x 1,3: reduce [8 4] to [1 3]: "},
		{"placement 4\nx = input 8,4 B\ny = mean x 1,a", "program: line 3, column 1: y = mean x 1,a: "},
		{"placement 4\nlog = input 8 B", `program: line 2, column 1: log = input 8 B: "log" is a word of the language and cannot name a tensor`},
		{"placement 4\nx = input 8,4 B\ny = softmax x", "program: line 3, column 1: y = softmax x: softmax takes a name and a dim: softmax X -1 (negative counts from the end)"},
		{"placement 4\nx = input 8,4 B\ny = softmax x 1 2", "program: line 3, column 1: y = softmax x 1 2: softmax takes a name and a dim: softmax X -1"},
		{"placement 4\nx = input 8,4 B\ny = softmax x last", `program: line 3, column 1: y = softmax x last: softmax's dim "last" is not an integer`},
		{"placement 4\nx = input 8,4 B\ny = softmax x 2", "program: line 3, column 1: y = softmax x 2: softmax [8 4] along 2: the tensor has 2 dims, so the dim is -2 to 1 (negative counts from the end), not 2"},
		{"placement 4\nx = input 8,4 B\ny = softmax x -3", "program: line 3, column 1: y = softmax x -3: softmax [8 4] along -3: the tensor has 2 dims, so the dim is -2 to 1"},
		{"placement 4\nx = input 8,4 B\ny = softmax z 0", "program: line 3, column 1: y = softmax z 0: z is not defined"},
		{"placement 4\nsoftmax = input 8 B", `program: line 2, column 1: softmax = input 8 B: "softmax" is a word of the language and cannot name a tensor`},
		{"placement 4\nrelu = input 8 B", `program: line 2, column 1: relu = input 8 B: "relu" is a word of the language and cannot name a tensor`},
		{"placement 4\nx = input 8,4 B\ngrad z", "program: line 3, column 1: grad z: z is not defined"},
		{"placement 4\nx = input 8,4 B\ngrad x", "program: line 3, column 1: grad x: x is an input, not the result of an op: grad takes a result"},
		{"placement 4\nx = input 8,4 B\ny = sum x 1,1\ngrad y\nz = sum x 1,4", "program: line 5, column 1: z = sum x 1,4: nothing may follow grad y (line 4): grad comes last"},
		{"placement 4\nx = input 8,4 B\ny = expand x 8,5", "program: line 3, column 1: y = expand x 8,5: expand [8 4] to [8 5]: "},
		{"placement 4\nx = input 8,4 B\ny = sum x 1,2", "program: line 3, column 1: y = sum x 1,2: reduce [8 4] to [1 2]: "},
		{"placement 4\nx = input 8,4 B\ny = box x S(3)", "program: line 3, column 1: y = box x S(3): "},
		{"placement 4\n1x = input 8 B", `program: line 2, column 1: 1x = input 8 B: "1x" is not a name: use letters, digits and _, starting with a letter`},
		{"placement 4\nsum = input 8 B", `program: line 2, column 1: sum = input 8 B: "sum" is a word of the language and cannot name a tensor`},
		{"placement 4\ngrad_x = input 8 B", `program: line 2, column 1: grad_x = input 8 B: "grad_x": names starting with grad_ are the gradients'`},
		{"placement 4\nx = input 8 B\nx + 1", `program: line 3, column 1: x + 1: want NAME = OP …, placement …, or grad NAME; "x" is none of them`},
		{"placement 4\nx = input 8 B;  y = add x", "program: line 2, column 17: y = add x: add takes two names: add A B"},
		// ids: int32, read by gather and the views only, never partial
		{"placement 4\nw = input 10,4 B\nids = input 8 B\ne = gather w ids", "program: line 4, column 1: e = gather w ids: gather's ids ids are float32; they are token ids, an input written i32 (e.g. ids = input 8 B i32)"},
		{"placement 4\nids = input 8 B i32\ny = exp ids", "program: line 3, column 1: y = exp ids: ids holds int32 ids (i32); exp computes on float32, and only gather (its ids) and the views (reshape, transpose, permute, expand) read ids"},
		{"placement 4\nw = input 10,4 B i32\nids = input 8 B i32\ne = gather w ids", "program: line 4, column 1: e = gather w ids: w holds int32 ids (i32); gather computes on float32"},
		{"placement 4\nids = input 8 P(sum) i32", "program: line 2, column 1: ids = input 8 P(sum) i32: ids (i32) are split (S) or whole (B), never partial"},
		{"placement 4\nids = input 8 B i32 from uniform", "program: line 2, column 1: ids = input 8 B i32 from uniform: ids (i32) are whole numbers; give them from a .npy file"},
		{"placement 4\nids = input 8 B i32\nb = box ids P(sum)", "program: line 3, column 1: b = box ids P(sum): ids (i32) are split (S) or whole (B), never partial"},
		{"placement 4\ni32 = input 8 B", `program: line 2, column 1: i32 = input 8 B: "i32" is a word of the language and cannot name a tensor`},
		{"placement 4\nauto = input 8 B", `program: line 2, column 1: auto = input 8 B: "auto" is a word of the language and cannot name a tensor`},
		{"placement 4\nx = input 8 B\ny = box x auto", "program: line 3, column 1: y = box x auto: "},
		{"placement 4\nx = input 8 S(0)\ny = box x regather", "program: line 3, column 1: y = box x regather: box needs an SBP to box to, e.g. box x B"},
		{"placement 4\nx = input 8 S(0)\ny = box x B regathered", "program: line 3, column 1: y = box x B regathered: "},
		{"placement 4\nbf16 = input 8 B", `program: line 2, column 1: bf16 = input 8 B: "bf16" is a word of the language and cannot name a tensor`},
		{"placement 4\nx = input 8 bf16", "program: line 2, column 1: x = input 8 bf16: input needs an SBP after its shape"},
		{"placement 4\noptimizer", `program: line 2, column 1: optimizer: optimizer takes adam or sgd, then optionally zero1 or zero2: optimizer adam, optimizer adam zero1; got ""`},
		{"placement 4\noptimizer lion", `program: line 2, column 1: optimizer lion: optimizer takes adam or sgd`},
		{"placement 4\noptimizer adam zero3", `program: line 2, column 1: optimizer adam zero3: optimizer adam: "zero3" is not a ZeRO stage: zero1 (its state split over every device) or zero2 (its gradients too); ZeRO-3 is the parameters' own split layout`},
		{"placement 4\noptimizer adam\noptimizer sgd", "program: line 3, column 1: optimizer sgd: the optimizer is given twice (line 2)"},
		{"placement 4\nx = input 8 B\ny = exp x\ngrad y\noptimizer adam", "program: line 5, column 1: optimizer adam: nothing may follow grad y (line 4): grad comes last"},
	} {
		_, err := Parse(c.src)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", c.src, c.want)
			continue
		}
		var perr *Error
		if !errors.As(err, &perr) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) =\n  %v\nwant one line starting\n  %s", c.src, err, c.want)
		}
	}
}

func TestParseErrorsKeepSentinels(t *testing.T) {
	_, err := Parse("placement 4\nx = input 8,4 S(0)\nw = input 5,3 B\ny = matmul x w")
	if !errors.Is(err, tensor.ErrShape) && !strings.Contains(err.Error(), "columns") {
		t.Errorf("%v: want tensor's or sbp's shape error inside", err)
	}
	if _, err := Parse("placement 4\nx = input 8 B\ny = frob x"); !errors.Is(err, ErrParse) {
		t.Errorf("%v: want ErrParse", err)
	}
}

// TestParseLongPrograms: a program is bounded by what it costs, not by
// its lines: 2,000 statements (an imported model's size) parse, and only
// a text past MaxSourceBytes is refused, in one line.
func TestParseLongPrograms(t *testing.T) {
	var b strings.Builder
	b.WriteString("placement 4\nx0 = input 8,4 S(0)\n")
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(&b, "x%d = tanh x%d\n", i, i-1)
	}
	b.WriteString("s = sum x1999 1,1\ngrad s\n")
	p, err := Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Stmts) != 2002 { // the inputs, the ops, the sum and grad
		t.Errorf("%d statements, want 2002", len(p.Stmts))
	}
	_, err = Parse("placement 4\n" + strings.Repeat("# a comment\n", MaxSourceBytes/12+1))
	if err == nil || !strings.HasPrefix(err.Error(), "program: the program's text is 4.00 MiB, more than the 4.00 MiB") || strings.Contains(err.Error(), "\n") {
		t.Errorf("%v: want the text's size refused in one line", err)
	}
}

// TestPrecisionAndOptimizer: an input's precision word after its SBP
// (f32 by default) and the optimizer statement, anywhere before grad.
func TestPrecisionAndOptimizer(t *testing.T) {
	p, err := Parse("placement 2; x = const 4,8 S(0) bf16; optimizer adam zero2; w = input 8,4 B f16; v = input 4 B; y = matmul x w; s = sum y 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]tensor.Precision{"x": tensor.BF16, "w": tensor.F16, "v": tensor.F32} {
		if got := p.Lookup(name).Precision; got != want {
			t.Errorf("%s: precision %v, want %v", name, got, want)
		}
	}
	if o := p.Optimizer; o == nil || o.Name != "adam" || o.ZeRO != 2 || o.Line != 1 || o.String() != "optimizer adam zero2" {
		t.Errorf("optimizer %+v, want adam zero2", o)
	}
}

// TestAuto: an input written auto is the planner's to lay out: B until
// it does, on every mesh dim; a precision may follow.
func TestAuto(t *testing.T) {
	p, err := Parse("placement [[0,1],[2,3]]; w = input 8,4 auto bf16; x = input 4,2 (S(0), B); y = matmul w x")
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Lookup("w"); !w.Auto || w.Sbp.String() != "(B, B)" || w.Precision != tensor.BF16 || p.Lookup("x").Auto {
		t.Errorf("w: auto %v, %v, %v", w.Auto, w.Sbp, w.Precision)
	}
}

// TestRegather: a box written regather after its SBP (on a mesh too)
// is marked; one without is not.
func TestRegather(t *testing.T) {
	p, err := Parse("placement [[0,1],[2,3]]; w = input 8,4 (S(0), S(0)); wb = box w (B, B) regather; wc = box w (B, S(0))")
	if err != nil {
		t.Fatal(err)
	}
	if wb, wc := p.Lookup("wb"), p.Lookup("wc"); !wb.Regather || wb.Sbp.String() != "(B, B)" || wc.Regather {
		t.Errorf("wb: regather %v, %v; wc: regather %v", wb.Regather, wb.Sbp, wc.Regather)
	}
}

// TestIdsAreInt32: an input written i32 holds int32 ids, gets no
// gradient (the graph makes it a constant), and its views stay int32;
// gather's result is float32, and f32 may be written too.
func TestIdsAreInt32(t *testing.T) {
	p, err := Parse("placement 2; w = input 10,4 S(0) f32; ids = input 2,3 S(0) i32 from ids.npy; r = reshape ids 6; e = gather w r; s = sum e 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"w": false, "ids": true, "r": true, "e": false} {
		if got := p.Lookup(name).Int(); got != want {
			t.Errorf("%s: Int() = %v, want %v", name, got, want)
		}
	}
	if s := p.Lookup("ids"); s.From != "ids.npy" || s.Sbp.String() != "S(0)" {
		t.Errorf("ids reads %q as %v, want ids.npy as S(0)", s.From, s.Sbp)
	}
}

// TestWithPlacement: the placement statement replaced, in a program of
// lines and in one of ';', comments and all else kept.
func TestWithPlacement(t *testing.T) {
	p, _ := sbp.ParsePlacement("[[0,1],[2,3]]")
	for src, want := range map[string]string{
		"# a model\nplacement 8   # eight\nx = input 8 S(0)": "# a model\nplacement [[0, 1], [2, 3]]   # eight\nx = input 8 S(0)",
		"x = input 4 B; placement 2; y = exp x":              "x = input 4 B; placement [[0, 1], [2, 3]]; y = exp x",
		"x = input 4 B":                                      "placement [[0, 1], [2, 3]]\nx = input 4 B",
	} {
		if got := WithPlacement(src, p); got != want {
			t.Errorf("WithPlacement(%q) = %q, want %q", src, got, want)
		}
	}
}
