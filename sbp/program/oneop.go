package program

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// OneOp is the program of a single op, y = op(inputs), on inputs of the
// given names, shapes and SBPs: what `stridelab sbp plan` builds from its
// flags, so that an op whose inputs fit none of its signatures is shown
// with the boxing it needs, as it would be inside a longer program, and
// what `stridelab sbp run` hands an engine. Its Source is the program
// written out, one statement a line after the placement:
//
//	placement cpu:[0, 1, 2, 3]
//	a = input 4,6 S(0)
//	b = input 6,5 B
//	y = matmul a b
//
// and its statements are the ones Parse reads from that source. An op
// the language has no word for (eq, step, repeat_grad, and a max or min
// to a scalar) is written as its String says: the program
// plans and runs, but its Source does not parse. A fault is an *Error
// naming the statement, as Parse's are.
func OneOp(p sbp.Placement, op sbp.Op, names []string, shapes []tensor.Shape, in []sbp.NdSbp) (*Program, error) {
	if len(names) != op.Arity() || len(shapes) != op.Arity() || len(in) != op.Arity() {
		return nil, &Error{Err: fmt.Errorf("%s takes %d inputs, got %d names, %d shapes and %d SBPs", op, op.Arity(), len(names), len(shapes), len(in))}
	}
	lines := []string{"placement " + p.String()}
	prog := &Program{Placement: p}
	add := func(name, rhs string, def func() (*Stmt, error)) error {
		text := name + " = " + rhs
		lines = append(lines, text)
		if err := checkName(prog, name); err != nil {
			return &Error{Line: len(lines), Col: 1, Stmt: text, Err: bad("%v", err)}
		}
		st, err := def()
		if err != nil {
			return &Error{Line: len(lines), Col: 1, Stmt: text, Err: err}
		}
		st.Line, st.Col, st.Text, st.Name = len(lines), 1, text, name
		prog.Stmts = append(prog.Stmts, st)
		return nil
	}
	for i, name := range names {
		rhs := fmt.Sprintf("input %s %v", shapes[i].Spell(), in[i])
		if sbp.IdsArg(op) == i {
			rhs += " i32"
		}
		if err := add(name, rhs, func() (*Stmt, error) { return parseDef(prog, name, rhs) }); err != nil {
			return nil, err
		}
	}
	rhs, worded := sbp.SpellOp(op, names)
	def := func() (*Stmt, error) { return parseDef(prog, "y", rhs) }
	if !worded {
		def = func() (*Stmt, error) {
			out, err := op.OutShape(shapes)
			return &Stmt{Kind: Apply, Word: op.Name(), Op: op, Args: append([]string(nil), names...), Shape: out}, err
		}
	}
	if err := add("y", rhs, def); err != nil {
		return nil, err
	}
	prog.Source = strings.Join(lines, "\n")
	return prog, nil
}

// OneOpInputs names the inputs of op's one-op program: x for one, a and
// b for two, a, b, c, … for more (a cat's).
func OneOpInputs(op sbp.Op) []string {
	if op.Arity() == 1 {
		return []string{"x"}
	}
	names := make([]string, op.Arity())
	for i := range names {
		names[i] = string(rune('a' + i%26))
		if i >= 26 {
			names[i] += strconv.Itoa(i / 26)
		}
	}
	return names
}
