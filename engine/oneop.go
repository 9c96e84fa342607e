package engine

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// A single op or a single boxing runs on an engine as a program of one
// statement: `stridelab sbp run` and `stridelab sbp boxing` hand an
// engine the plan of OpProgram's or BoxingProgram's source, with the
// input values given by InputNames; the result is named y.

// InputNames names the inputs of op's one-op program: x for one, a and b
// for two.
func InputNames(op sbp.Op) []string {
	if op.Arity() == 2 {
		return []string{"a", "b"}
	}
	return []string{"x"}
}

// OpProgram writes the program that runs op once on p, on inputs of the
// shapes laid out by in, its result named y:
//
//	placement cpu:[0, 1, 2, 3]; a = input 4,6 S(0); b = input 6,5 B; y = matmul a b
//
// The ops the program language has are expand, repeat, reduce (sum, and
// max or min to a shape of at least one dim), matmul and the binary ops
// but eq; the others (eq, transpose, scale, repeat_grad) are an error.
// Programs are float32.
func OpProgram(p sbp.Placement, op sbp.Op, shapes []tensor.Shape, in []sbp.NdSbp) (string, error) {
	names := InputNames(op)
	if len(shapes) != len(names) || len(in) != len(names) {
		return "", fmt.Errorf("engine: %v takes %d inputs, got %d shapes and %d SBPs", op, len(names), len(shapes), len(in))
	}
	par := sbp.Params(op)
	var call string
	switch par.Name {
	case "expand":
		call = "expand x " + tensor.SpellInts(par.Size)
	case "repeat":
		call = "repeat x " + tensor.SpellInts(par.Times)
	case "reduce":
		if par.Reduce != tensor.Sum && len(par.To) == 0 {
			return "", fmt.Errorf("engine: %v: a program spells a max or min to a shape of at least one dim (1,1 …), not a scalar", op)
		}
		call = par.Reduce.String() + " x " + par.To.Spell()
	case "matmul", "add", "sub", "mul", "div", "max", "min":
		call = par.Name + " a b"
	default:
		return "", fmt.Errorf("engine: %v has no word in the program language (its words are expand, repeat, sum, max, min, matmul, add, sub, mul, div)", op)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "placement %v", p)
	for i, n := range names {
		fmt.Fprintf(&b, "; %s = input %s %v", n, shapes[i].Spell(), in[i])
	}
	fmt.Fprintf(&b, "; y = %s", call)
	return b.String(), nil
}

// BoxingProgram writes the program that boxes x, a tensor of shape on p,
// from one nd-SBP to another, its result named y:
//
//	placement cpu:[0, 1, 2, 3]; x = input 25,33 S(0); y = box x S(1)
func BoxingProgram(p sbp.Placement, shape tensor.Shape, from, to sbp.NdSbp) string {
	return fmt.Sprintf("placement %v; x = input %s %v; y = box x %v", p, shape.Spell(), from, to)
}
