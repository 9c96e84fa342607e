package script

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// opWordCases is a statement for every op word of the language, in each
// of its meanings (WORD USAGE, as sbp's table has them), on the inputs a
// (4×6) and b (6×4, 4×6 or 6 for the binary ops).
var opWordCases = map[string]string{
	"matmul A B":        "b = input 6,4 B; y = matmul a b",
	"gather TABLE IDS":  "b = input 2,3 S(0) i32; y = gather a b",
	"slice X -1 0 64":   "y = slice a -1 1 5",
	"cat A B -1":        "b = input 4,2 B; c = input 4,1 S(0); y = cat a b c -1",
	"add A B":           "b = input 6 B; y = add a b",
	"sub A B":           "b = input 4,6 S(0); y = sub a b",
	"mul A B":           "b = input 6 B; y = mul a b",
	"div A B":           "b = input 4,6 B; y = div a b",
	"max A B":           "b = input 4,6 S(0); y = max a b",
	"min A B":           "b = input 6 B; y = min a b",
	"eq A B":            "b = input 6 B; y = eq a b",
	"exp X":             "y = exp a",
	"log X":             "y = log a",
	"neg X":             "y = neg a",
	"sqrt X":            "y = sqrt a",
	"rsqrt X":           "y = rsqrt a",
	"tanh X":            "y = tanh a",
	"relu X":            "y = relu a",
	"erf X":             "y = erf a",
	"square X":          "y = square a",
	"softmax X -1":      "y = softmax a -1",
	"scale X 0.5":       "y = scale a 0.25",
	"expand X SIZE":     "y = expand a 3,4,6",
	"repeat X TIMES":    "y = repeat a 2,1",
	"reshape X 8,4,16":  "y = reshape a 2,2,6",
	"permute X 0,2,1,3": "y = permute a 1,0",
	"transpose X":       "y = transpose a",
	"sum X 1,3,1":       "y = sum a 1,6",
	"max X 1,3,1":       "y = max a 4,1",
	"min X 1,3,1":       "y = min a 1,6",
	"mean X 1,3,1":      "y = mean a 4,1",
}

// TestEveryOpWord: every op word the language has, in each of its
// meanings (sbp's table of ops), goes through parse -> OneOp's source ->
// parse to the same op, and its plan is written by every engine's
// writer. A word added to the table without a case here fails.
func TestEveryOpWord(t *testing.T) {
	var meanings []string
	for _, spec := range sbp.Specs() {
		for _, w := range spec.Words {
			meanings = append(meanings, w.Word+" "+w.Usage)
		}
	}
	for m := range opWordCases {
		if !slices.Contains(meanings, m) {
			t.Errorf("the case %q is no op word of the language (sbp's table: %v)", m, meanings)
		}
	}
	if words := program.OpWords(); len(words) != len(opWordCases)-2 { // max and min mean two things each
		t.Errorf("the language has %d op words (%v); the cases cover %d meanings", len(words), words, len(opWordCases))
	}
	for _, w := range meanings {
		stmt, ok := opWordCases[w]
		if !ok {
			t.Errorf("no case for the op word %q: add one to opWordCases", w)
			continue
		}
		src := "placement 2; a = input 4,6 S(0); " + stmt
		p, err := program.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		y := p.Stmts[len(p.Stmts)-1]
		var shapes []tensor.Shape
		var sbps []sbp.NdSbp
		for _, a := range y.Args {
			in := p.Lookup(a)
			shapes, sbps = append(shapes, in.Shape), append(sbps, in.Sbp)
		}
		one, err := program.OneOp(p.Placement, y.Op, program.OneOpInputs(y.Op), shapes, sbps)
		if err != nil {
			t.Fatalf("%s: OneOp: %v", w, err)
		}
		back, err := program.Parse(one.Source)
		if err != nil {
			t.Errorf("%s: OneOp's source does not parse back: %v\n%s", w, err, one.Source)
			continue
		}
		got := back.Stmts[len(back.Stmts)-1]
		if got.Op.String() != y.Op.String() || !reflect.DeepEqual(sbp.Params(got.Op), sbp.Params(y.Op)) || !got.Shape.Equal(y.Shape) {
			t.Errorf("%s: %q parses back as %v %v, want %v %v", w, one.Source, got.Op, got.Shape, y.Op, y.Shape)
		}
		plan, err := planner.NewPlan(back, planner.Greedy)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		for _, e := range []Engine{OneFlow, DTensor, Torch} {
			var out strings.Builder
			err := Write(&out, plan, e, Options{})
			if err != nil && !(e == OneFlow && strings.Contains(err.Error(), "DTensor (pytorch) has")) {
				t.Errorf("%s, %s: %v", w, e, err)
			}
			if err == nil && !strings.Contains(out.String(), "y") {
				t.Errorf("%s, %s: the file never names y", w, e)
			}
		}
	}
}
