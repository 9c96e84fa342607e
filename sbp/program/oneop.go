package program

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// OneOp is the program of a single op, y = op(inputs), on inputs of the
// given names, shapes and SBPs: what `stridelab sbp plan` builds from its
// flags, so that an op whose inputs fit none of its signatures is shown
// with the boxing it needs, as it would be inside a longer program. Its
// statements are numbered as if written one a line after the placement;
// a fault is an *Error naming the statement, as Parse's are.
func OneOp(p sbp.Placement, op sbp.Op, names []string, shapes []tensor.Shape, in []sbp.NdSbp) (*Program, error) {
	if len(names) != op.Arity() || len(shapes) != op.Arity() || len(in) != op.Arity() {
		return nil, &Error{Err: fmt.Errorf("%s takes %d inputs, got %d names, %d shapes and %d SBPs", op, op.Arity(), len(names), len(shapes), len(in))}
	}
	lines := []string{"placement " + p.String()}
	prog := &Program{Placement: p}
	for i, name := range names {
		text := fmt.Sprintf("%s = input %s %v", name, shapes[i].Spell(), in[i])
		lines = append(lines, text)
		st := &Stmt{Line: len(lines), Col: 1, Text: text, Kind: Input, Name: name, Word: "input", Shape: shapes[i].Clone(), Sbp: in[i].Clone()}
		if err := checkName(prog, name); err != nil {
			return nil, &Error{Line: st.Line, Col: 1, Stmt: text, Err: bad("%v", err)}
		}
		if err := sbp.Validate(shapes[i], p, in[i]); err != nil {
			return nil, &Error{Line: st.Line, Col: 1, Stmt: text, Err: err}
		}
		prog.Stmts = append(prog.Stmts, st)
	}
	text := "y = " + strings.Join(append([]string{op.Name()}, names...), " ")
	if rest := strings.TrimPrefix(op.String(), op.Name()); rest != op.String() {
		text += rest // expand x to [2 4 3 4 2]
	} else {
		text += " (" + rest + ")"
	}
	lines = append(lines, text)
	out, err := op.OutShape(shapes)
	if err != nil {
		return nil, &Error{Line: len(lines), Col: 1, Stmt: text, Err: err}
	}
	prog.Stmts = append(prog.Stmts, &Stmt{Line: len(lines), Col: 1, Text: text, Kind: Apply, Name: "y", Word: op.Name(), Op: op,
		Args: append([]string(nil), names...), Shape: out})
	prog.Source = strings.Join(lines, "\n")
	return prog, nil
}
