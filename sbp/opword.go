package sbp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// OpSpec is one kind of op (its Op.Name: "matmul", "add", "reduce",
// "repeat_grad", …) as every front end and engine writes it: the
// language's words for it, and how the Python of each engine spells it.
// Each op's file registers its spec (registerOp); the language's parser
// and OneOp, the emitters of engine/script and the torch engine's workers
// read the table (Specs, SpecOf, Words), so a new op is its own file
// here plus its kernels.
type OpSpec struct {
	Name  string   // as Op.Name
	Words []OpWord // the language's words for it; none for an op only the backward makes (eq, step, repeat_grad)
	// Global spells the op on whole (global) tensors named x, of logical
	// shapes in, in the Python of lib ("flow" or "torch": OneFlow's global
	// tensors and DTensor share these spellings).
	Global func(lib string, p OpParams, x []string, in []tensor.Shape) string
	// Local spells the op on one device's shards named x, in torch with
	// the helpers of the torch engine's ops.py (reduce_to, mean_to,
	// softmax, matmul, UNARY, F32, DEV): each(get) is the expression of
	// a device's own arguments (get of its RankPlan, PlanOp's rewrite),
	// a literal when one device runs it, a lookup by rank in a file that
	// every rank runs.
	Local func(p OpParams, x []string, each func(get func(RankPlan) []int) string) string
	// Grad appends the op's gradient with respect to one argument, as
	// OneFlow's autograd writes it (grad.go); nil for the backward's own
	// ops, which are never differentiated.
	Grad func(b Backward, c GradCall) (string, error)
}

// OpWord is one word of the language: a statement NAME = WORD ARGS…
// whose arguments Usage shows.
type OpWord struct {
	Word  string
	Usage string // the arguments after the word, e.g. "A B", "X 1,3,1"
	// Order places the word in the language's list of op words (the
	// package doc's order, the parser's list of the ops).
	Order int
	// Match, when set, says whether a statement's arguments (the words
	// after WORD; name reports whether one names a tensor) are this
	// word's, where the word has another meaning too (max A B, the
	// elementwise max, and max X 1,3, the reduction).
	Match func(args []string, name func(string) bool) bool
	// Build reads the arguments (a WordCall) into the op.
	Build func(c *WordCall) (Op, error)
	// Spell writes what follows the input names as Build reads it back,
	// its leading space included ("" when nothing follows); ok is false
	// when the language cannot write this op with this word.
	Spell func(p OpParams) (args string, ok bool)
}

// WordCall is a statement's op word and what follows it, as an OpWord's
// Build reads it.
type WordCall struct {
	Word string
	Args []string // the words after Word
	// Input is the shape of the tensor name, read by the statement (it
	// becomes the op's next input), or why the name cannot be read.
	Input func(name string) (tensor.Shape, error)
}

// UsageError is a statement whose arguments do not fit its op word, in
// the words of the language ("softmax takes a name and a dim: …").
type UsageError string

func (e UsageError) Error() string { return string(e) }

func usagef(format string, args ...any) error { return UsageError(fmt.Sprintf(format, args...)) }

var specs []*OpSpec

// registerOp adds spec to the table; each op's file calls it once.
func registerOp(spec *OpSpec) {
	if slices.ContainsFunc(specs, func(s *OpSpec) bool { return s.Name == spec.Name }) {
		panic("sbp: op " + spec.Name + " registered twice")
	}
	specs = append(specs, spec)
}

// Specs is the table: every kind of op, in the order registered (a new
// slice).
func Specs() []*OpSpec { return slices.Clone(specs) }

// SpecOf is the spec of op's kind (by Op.Name), or nil for an op made
// outside this package.
func SpecOf(op Op) *OpSpec {
	name := op.Name()
	for _, s := range specs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Words is every op word of the language in its order, each word once
// (max and min have two meanings).
func Words() []string {
	var all []OpWord
	for _, s := range specs {
		all = append(all, s.Words...)
	}
	slices.SortStableFunc(all, func(a, b OpWord) int { return a.Order - b.Order })
	var out []string
	for _, w := range all {
		if !slices.Contains(out, w.Word) {
			out = append(out, w.Word)
		}
	}
	return out
}

// WordsOf is the meanings of word, those with a Match first.
func WordsOf(word string) []OpWord {
	var out []OpWord
	for _, s := range specs {
		for _, w := range s.Words {
			if w.Word == word {
				out = append(out, w)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b OpWord) int {
		if (a.Match != nil) == (b.Match != nil) {
			return 0
		}
		if a.Match != nil {
			return -1
		}
		return 1
	})
	return out
}

// WordOf is the word a plan shows for op: the language's word for it
// (sum for a sum reduce), or its Name for an op only the backward makes.
func WordOf(op Op) string {
	if spec := SpecOf(op); spec != nil {
		p := Params(op)
		for _, w := range spec.Words {
			if _, ok := w.Spell(p); ok {
				return w.Word
			}
		}
	}
	return op.Name()
}

// SpellOp writes op applied to names as the language says it (matmul a
// b; expand x 2,-1,3; sum x 1,1; softmax x -1; …) and whether the
// language has words for it; when not, op's String with the names after
// its name (eq a b, step x, repeat_grad x …), which does not parse.
func SpellOp(op Op, names []string) (string, bool) {
	text := strings.Join(names, " ")
	if spec := SpecOf(op); spec != nil {
		p := Params(op)
		for _, w := range spec.Words {
			if args, ok := w.Spell(p); ok {
				return w.Word + " " + text + args, true
			}
		}
	}
	text = op.Name() + " " + text
	if rest := strings.TrimPrefix(op.String(), op.Name()); rest != op.String() {
		return text + rest, false
	}
	return text + " (" + op.String() + ")", false
}

// The arguments' shapes of the language's statements, read by the words'
// Builds: names first, then the op's own arguments.

// oneName reads "WORD X" (usage is the statement's fault when not).
func oneName(c *WordCall, usage string) (tensor.Shape, error) {
	if len(c.Args) != 1 {
		return nil, UsageError(usage)
	}
	return c.Input(c.Args[0])
}

// twoNames reads "WORD A B".
func twoNames(c *WordCall) ([]tensor.Shape, error) {
	if len(c.Args) != 2 {
		return nil, usagef("%s takes two names: %s A B", c.Word, c.Word)
	}
	a, err := c.Input(c.Args[0])
	if err != nil {
		return nil, err
	}
	b, err := c.Input(c.Args[1])
	if err != nil {
		return nil, err
	}
	return []tensor.Shape{a, b}, nil
}

// nameAndShape reads "WORD X 1,3,1": a reduction's target.
func nameAndShape(c *WordCall) (tensor.Shape, tensor.Shape, error) {
	if len(c.Args) != 2 {
		return nil, nil, usagef("%s takes a name and a target shape: %s X 1,3,1", c.Word, c.Word)
	}
	x, err := c.Input(c.Args[0])
	if err != nil {
		return nil, nil, err
	}
	to, err := tensor.ParseShape(c.Args[1])
	return x, to, err
}

// intsWord is the word of an op on one name and a list of ints (expand
// X 2,-1,3; repeat X 2,1,3; permute X 0,2,1; reshape X 8,-1): its usage,
// the statement's fault when the words do not fit, what names the list
// in a bad list's error, and how the op is made from the list and the
// list read back from its params.
func intsWord(word, usage, fault, list string, order int, build func([]int) Op, ints func(OpParams) []int) OpWord {
	return OpWord{Word: word, Usage: usage, Order: order,
		Build: func(c *WordCall) (Op, error) {
			if len(c.Args) != 2 {
				return nil, UsageError(fault)
			}
			if _, err := c.Input(c.Args[0]); err != nil {
				return nil, err
			}
			n, err := tensor.ParseInts(list, c.Args[1])
			if err != nil {
				return nil, err
			}
			return build(n), nil
		},
		Spell: func(p OpParams) (string, bool) { return " " + tensor.SpellInts(ints(p)), true },
	}
}

// looksLikeShape: the word starts as a shape does.
func looksLikeShape(s string) bool { return s != "" && strings.IndexByte("0123456789-", s[0]) >= 0 }

// Python spellings the specs share.

// joinInts writes ints with ", " between them.
func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// PyList spells ints as a Python list: [2, 3].
func PyList(v []int) string { return "[" + joinInts(v) + "]" }

// PyTuple spells ints as a Python tuple: (), (3,), (2, 3).
func PyTuple(v []int) string {
	if len(v) == 1 {
		return "(" + strconv.Itoa(v[0]) + ",)"
	}
	return "(" + joinInts(v) + ")"
}

// pyArgs spells ints as a call's arguments: (2, 3).
func pyArgs(v []int) string { return "(" + joinInts(v) + ")" }

// shapeArgs spells a shape as reshape's arguments: (2, 3), or (()) for
// a scalar (reshape() takes no empty argument list).
func shapeArgs(v []int) string {
	if len(v) == 0 {
		return "(())"
	}
	return pyArgs(v)
}
