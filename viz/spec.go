package viz

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp/cluster"
)

// Spec says which scene to build and from what, in the CLI's words: the
// same keys are `stridelab draw`'s flags, the playground's URL hash
// (#/expand?shape=4,1,3&size=4,2,3) and the desktop app's fields. Keys
// lists them in one place; Params and ParseSpec go both ways, and
// [Spec.String] and [ParseCommand] spell it as a command line.
type Spec struct {
	Scene  string
	Values map[string]string // key → value, only keys the scene takes
	Step   int
}

// Key is one parameter of a scene, and how a front end lets a person
// type it.
type Key struct {
	Name, Help string
	// Rows > 0 marks a program's text: the playground gives it a text
	// area of that many rows, one statement a line (ProgramLines), and
	// the desktop app's one-line field shows it with "; " between the
	// statements (ProgramOneLine). 0 is a one-line value.
	Rows int
	// Choices are the values the key takes, its default first: a front
	// end offers a toggle (a menu where they are many), and the default
	// is written as no value. nil for free text.
	Choices []string
	// Needs names the key this one means something only beside: a front
	// end hides it while that key has no value ("" or its default), and
	// writes no value for it then. "" for a key that stands alone.
	Needs string
}

// Keys are every parameter any scene takes, with their help text.
var Keys = []Key{
	{Name: "shape", Help: "the input shape, e.g. 4,1,3 (binary: a's shape)"},
	{Name: "size", Help: "expand: the size to expand to (-1 keeps a dim, new dims in front)"},
	{Name: "times", Help: "repeat: the repeat count per dim"},
	{Name: "op", Help: "binary: add|sub|mul|div|max|min|eq; reduce: sum|max|min; plan: expand|repeat|add|…|reduce|matmul|softmax|transpose|permute|reshape"},
	{Name: "b-shape", Help: "binary and plan: the second operand's shape"},
	{Name: "to", Help: "reduce: the target shape; plan with op reshape: the new shape (-1 infers one dim); boxing: the SBP to box to"},
	{Name: "index", Help: "view: NumPy-style indices, e.g. '1:3, 0, :, None'"},
	{Name: "permute", Help: "view and plan with op permute: a permutation of the dims, e.g. 1,0,2"},
	{Name: "reshape", Help: "view: a new shape (-1 infers one dim)"},
	{Name: "sbp", Help: "placement and plan: the SBP per mesh dim, e.g. S(0) or (S(0), B)"},
	{Name: "b-sbp", Help: "plan: the second input's SBP"},
	{Name: "placement", Help: "placement, plan and boxing: devices, e.g. 4, 0-3 or [[0,1],[2,3]]"},
	{Name: "from", Help: "boxing: the SBP to box from"},
	{Name: "reduce", Help: "plan with op reduce: sum|max|min"},
	{Name: "dim", Help: "plan with op softmax: the dim it normalises along (negative counts from the end; the last by default)"},
	{Name: "offset", Help: "expand, repeat, binary, view: a storage offset of the (first) operand to show its readers"},
	{Name: "src", Help: "program: the statements, one a line or separated by ';', '#' starts a comment (placement 4; x = input 8,4 S(0); …)", Rows: 8},
	{Name: "strategy", Help: "program: greedy (OneFlow's eager rule, the default) or exact (the least cost in all: bytes, or time on a cluster)", Choices: []string{"greedy", "exact"}},
	{Name: "cluster", Help: "program: time the plan on a cluster: none or a preset (" + cluster.PresetList() + "); draw also takes a cluster file or its JSON",
		Choices: append([]string{NoCluster}, cluster.PresetNames()...)},
	{Name: "cost", Help: "program on a cluster: what exact minimises: time (the default) or bytes", Choices: []string{"time", "bytes"}, Needs: "cluster"},
	{Name: "memory", Help: "program: what each device holds at each step, a line per device: hide or show", Choices: []string{"hide", "show"}},
}

// Applies reports whether k means something beside values (a front
// end's fields, by key): always, unless k.Needs names a key whose value
// is "" or that key's default (its first choice). A front end hides a
// key that does not apply and sends no value for it.
func (k Key) Applies(values map[string]string) bool {
	if k.Needs == "" {
		return true
	}
	v := strings.TrimSpace(values[k.Needs])
	for _, n := range Keys {
		if n.Name == k.Needs && len(n.Choices) > 0 && v == n.Choices[0] {
			return false
		}
	}
	return v != ""
}

// ParseSpec checks that scene exists and that values hold its required
// keys and nothing it does not take (empty values count as absent).
func ParseSpec(scene string, values map[string]string, step int) (Spec, error) {
	kind, err := kindOf(scene)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Scene: scene, Values: map[string]string{}, Step: step}
	for k, v := range values {
		if v == "" {
			continue
		}
		if !kind.takes(k) {
			return Spec{}, &FieldError{Key: k, Err: fmt.Errorf("viz: scene %s takes no --%s (it takes %s)", scene, k, strings.Join(append(append([]string{}, kind.Required...), kind.Optional...), ", "))}
		}
		s.Values[k] = v
	}
	for _, k := range kind.Required {
		if s.Values[k] == "" {
			return Spec{}, &FieldError{Key: k, Err: fmt.Errorf("viz: scene %s needs --%s", scene, k)}
		}
	}
	if step < 0 {
		return Spec{}, fmt.Errorf("viz: step %d: steps count from 0", step)
	}
	return s, nil
}

// Get returns the value of key, or "".
func (s Spec) Get(key string) string { return s.Values[key] }

// Params lists the spec's keys and values in Keys order, the step last:
// what a URL hash or a command line writes.
func (s Spec) Params() [][2]string {
	var out [][2]string
	for _, k := range Keys {
		if v, ok := s.Values[k.Name]; ok {
			out = append(out, [2]string{k.Name, v})
		}
	}
	if s.Step > 0 {
		out = append(out, [2]string{"step", strconv.Itoa(s.Step)})
	}
	return out
}
