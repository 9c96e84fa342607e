package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// stmt is one line of the program written: the statement and the module
// path its comment names.
type stmt struct {
	text, module string
}

// constFile is a constant the lowering makes (a one-hot piece, a scalar),
// written as DIR/NAME.npy.
type constFile struct {
	name string
	t    tensor.Tensor
}

// lowering writes the trace's nodes as statements: names maps a trace
// node to the program name that holds its value (an alias reads
// another's), tuples the nodes of several results to their i-th.
type lowering struct {
	placement sbp.Placement
	inputs    []stmt // parameters, examples and constants, before the ops
	ops       []stmt
	names     map[string]string
	shapes    map[string]tensor.Shape
	taken     map[string]bool
	tuples    map[string]func(i int) (string, error)
	files     []constFile
	renames   map[string]string // a file trace.py wrote → the NAME.npy the program reads
	fromFile  map[string]string // a file trace.py wrote → the constant that reads it
	made      map[string]string // a constant the lowering made, by what it holds ("arange 64", "scalar 1")
	ids       map[string]bool   // the inputs and constants of int32 token ids (written i32)
	precision tensor.Precision  // the float inputs' and constants' precision word (F32 writes none)
	module    string            // the module path of the node being written
}

func newLowering(p sbp.Placement) *lowering {
	return &lowering{placement: p, names: map[string]string{}, shapes: map[string]tensor.Shape{}, taken: map[string]bool{},
		tuples: map[string]func(int) (string, error){}, made: map[string]string{}, renames: map[string]string{}, fromFile: map[string]string{}, ids: map[string]bool{}}
}

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// fresh is a program name for base: its characters that a name may not
// hold made _, unique, and never a word of the language.
func (l *lowering) fresh(base string) string {
	b := strings.Trim(notNameChar.ReplaceAllString(base, "_"), "_")
	if b == "" || b[0] >= '0' && b[0] <= '9' {
		b = "t_" + b
	}
	name := b
	for i := 2; !program.IsName(name) || l.taken[name]; i++ {
		name = b + "_" + strconv.Itoa(i)
	}
	l.taken[name] = true
	return name
}

// whole is the SBP of a tensor whole on every device: B, or (B, B) on a
// 2-D mesh.
func (l *lowering) whole() sbp.NdSbp {
	nd := make(sbp.NdSbp, len(l.placement.Hierarchy()))
	for i := range nd {
		nd[i] = sbp.B
	}
	return nd
}

// input writes an input (or, with isConst, a constant) statement whose
// values are src: a file trace.py wrote (read as NAME.npy, the file
// renamed), "uniform", or "" for 0, 1, 2, …; with ids, of int32 token
// ids (written i32), which only gather reads.
func (l *lowering) input(base string, shape tensor.Shape, nd sbp.NdSbp, src string, isConst, ids bool, comment string) string {
	if name, ok := l.fromFile[src]; ok && src != "" && src != program.ValuesUniform && isConst {
		return name // one constant for every use of one file (each layer's mask)
	}
	name := l.fresh(base)
	word := "input"
	if isConst {
		word = "const"
	}
	lay := "auto" // nil: the planner picks
	if nd != nil {
		lay = nd.String()
	}
	text := fmt.Sprintf("%s = %s %s %s", name, word, shape.Spell(), lay)
	if ids {
		text += " i32"
		l.ids[name] = true
	} else if l.precision != tensor.F32 {
		text += " " + l.precision.String()
	}
	switch src {
	case "":
	case program.ValuesUniform:
		text += " from uniform"
	default:
		text += " from " + name + ".npy"
		l.renames[src] = name + ".npy"
		l.fromFile[src] = name
	}
	l.inputs = append(l.inputs, stmt{text, comment})
	l.shapes[name] = shape.Clone()
	return name
}

// emit writes NAME = WORD ARGS… for the node being written and returns
// the name; shape is its result's.
func (l *lowering) emit(base string, shape tensor.Shape, format string, args ...any) string {
	name := l.fresh(base)
	l.ops = append(l.ops, stmt{name + " = " + fmt.Sprintf(format, args...), l.module})
	l.shapes[name] = shape.Clone()
	return name
}

// constant is a constant the lowering makes, once per what it holds.
func (l *lowering) constant(key, base string, t tensor.Tensor) string {
	if name, ok := l.made[key]; ok {
		return name
	}
	name := l.input(base, t.Shape(), l.whole(), "", true, false, "made by the importer: "+key)
	l.inputs[len(l.inputs)-1].text += " from " + name + ".npy"
	l.files = append(l.files, constFile{name, t})
	l.made[key] = name
	return name
}

// scalar is a constant of shape () holding v.
func (l *lowering) scalar(v float64) string {
	t, _ := tensor.FromSlice(tensor.Shape{}, []float32{float32(v)})
	return l.constant("scalar "+spellFloat(v), "c_"+strings.NewReplacer("-", "m", ".", "p", "+", "").Replace(spellFloat(v)), t)
}

// arange is the constant 0, 1, …, n−1 (a const without from holds
// these).
func (l *lowering) arange(n int) string {
	key := "arange " + strconv.Itoa(n)
	if name, ok := l.made[key]; ok {
		return name
	}
	name := l.input("range_"+strconv.Itoa(n), tensor.Shape{n}, l.whole(), "", true, false, "made by the importer: 0, 1, …, "+strconv.Itoa(n-1))
	l.made[key] = name
	return name
}

// spellFloat writes v as the language reads a constant back exactly.
func spellFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// refusal is an op the importer does not write, said in one line.
func (l *lowering) refusal(target, why string) error {
	where := l.module
	if where == "" {
		where = "the model's forward"
	}
	if why != "" {
		why = " (" + why + ")"
	}
	return fmt.Errorf("import: %s: %s is not supported%s", where, target, why)
}

// arg reads argument i of n: a node, a number, a list, None.
type arg struct {
	raw json.RawMessage
}

func (n *node) arg(i int) arg {
	if i < len(n.Args) {
		return arg{n.Args[i]}
	}
	return arg{}
}

// kwarg is the keyword argument k, or the positional one at i.
func (n *node) kwarg(k string, i int) arg {
	if v, ok := n.Kwargs[k]; ok {
		return arg{v}
	}
	return n.arg(i)
}

// absent says whether the argument is missing or None.
func (a arg) absent() bool { return len(a.raw) == 0 || string(a.raw) == "null" }

// ref is the node the argument names, or "".
func (a arg) ref() string {
	var r struct {
		Ref string `json:"ref"`
	}
	if json.Unmarshal(a.raw, &r) == nil {
		return r.Ref
	}
	return ""
}

// num is the argument as a number (an int, a float, or ±inf and nan).
func (a arg) num() (float64, bool) {
	var f float64
	if json.Unmarshal(a.raw, &f) == nil {
		return f, true
	}
	var s struct {
		Float string `json:"float"`
	}
	if json.Unmarshal(a.raw, &s) == nil && s.Float != "" {
		switch s.Float {
		case "inf":
			return math.Inf(1), true
		case "-inf":
			return math.Inf(-1), true
		case "nan":
			return math.NaN(), true
		}
	}
	return 0, false
}

// ints is the argument as a list of ints (a single int as one).
func (a arg) ints() ([]int, bool) {
	var v []int
	if json.Unmarshal(a.raw, &v) == nil {
		return v, true
	}
	var i int
	if json.Unmarshal(a.raw, &i) == nil {
		return []int{i}, true
	}
	return nil, false
}

// str is the argument as a string, or "".
func (a arg) str() string {
	var s string
	_ = json.Unmarshal(a.raw, &s)
	return s
}

// tensors is the program names that hold the nodes n's arguments at idx
// read (name, each).
func (l *lowering) tensors(n *node, idx ...int) ([]string, error) {
	out := make([]string, len(idx))
	for k, i := range idx {
		x, err := l.name(n, n.arg(i))
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

// name is the program name that holds the node a reads.
func (l *lowering) name(n *node, a arg) (string, error) {
	r := a.ref()
	if r == "" {
		return "", l.refusal(n.Target, "an argument the importer expected to be a tensor is "+string(a.raw))
	}
	name, ok := l.names[r]
	if !ok {
		return "", l.refusal(n.Target, "it reads "+r+", which the importer has not written")
	}
	return name, nil
}

// operand is a tensor argument's name, or a number's constant.
func (l *lowering) operand(n *node, a arg) (string, error) {
	if v, ok := a.num(); ok {
		return l.scalar(v), nil
	}
	return l.name(n, a)
}

// dim is d counted from the front of a rank-r shape.
func dim(d, r int) int {
	if d < 0 {
		return d + r
	}
	return d
}

// keepdims is shape with the dims in dims made 1 (all dims when dims is
// empty).
func keepdims(shape tensor.Shape, dims []int) tensor.Shape {
	out := shape.Clone()
	if len(dims) == 0 {
		for i := range out {
			out[i] = 1
		}
		return out
	}
	for _, d := range dims {
		out[dim(d, len(shape))] = 1
	}
	return out
}

// reshapeTo writes x reshaped to shape, or x itself when it has it.
func (l *lowering) reshapeTo(base, x string, shape tensor.Shape) string {
	if l.shapes[x].Equal(shape) {
		return x
	}
	return l.emit(base, shape, "reshape %s %s", x, shape.Spell())
}

// outShape is the node's result shape.
func (n *node) outShape() tensor.Shape { return tensor.Shape(slices.Clone(n.Shape)) }

// isFloat says whether a traced dtype is a floating-point one.
func isFloat(dtype string) bool { return strings.HasPrefix(dtype, "float") || dtype == "bfloat16" }

// idsOnly is the nodes every reader of which is an embedding reading
// them as its ids (argument 1): the integer examples and constants the
// program declares i32 for gather; an id that anything else reads (a
// target compared with the classes) stays float32.
func idsOnly(nodes []*node) map[string]bool {
	ids, other := map[string]bool{}, map[string]bool{}
	for _, n := range nodes {
		lookup := opName(n.Target) == "aten.embedding"
		for i, a := range n.Args {
			for _, r := range refsIn(a) {
				if lookup && i == 1 {
					ids[r] = true
				} else {
					other[r] = true
				}
			}
		}
		for _, a := range n.Kwargs {
			for _, r := range refsIn(a) {
				other[r] = true
			}
		}
	}
	for r := range other {
		delete(ids, r)
	}
	return ids
}

// refsIn lists the nodes an argument names, in lists too.
func refsIn(raw json.RawMessage) []string {
	if r := (arg{raw}).ref(); r != "" {
		return []string{r}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, a := range list {
		out = append(out, refsIn(a)...)
	}
	return out
}
