package program

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Program is a parsed and checked program: a placement, global inputs,
// ops on them and at most one grad. Every statement's names are defined
// before use and its shapes fit; SBPs fit the mesh and the shapes.
type Program struct {
	Source    string
	Placement sbp.Placement
	Stmts     []*Stmt // in order, the placement line left out
	Grad      *Stmt   // the grad statement, or nil
	// Optimizer is the optimizer statement's (the state it adds to what
	// each parameter's devices hold), or nil: none.
	Optimizer *Optimizer
}

// Kind is what a statement does.
type Kind uint8

const (
	// Input defines a global input: a shape and an SBP, and either the
	// values 0, 1, 2, … (float32), tensor.Uniform's values (from
	// uniform) or the logical values of a .npy file. Written const, it
	// is a constant: the backward gives it no gradient.
	Input Kind = iota + 1
	// Apply defines a name as an op on earlier names.
	Apply
	// Box defines a name as an earlier name boxed to an SBP (OneFlow's
	// to_global): the same logical values, laid out anew.
	Box
	// Grad asks for the backward from a name, seeded with ones.
	Grad
)

// Stmt is one statement: where it is in the source, and what it says.
type Stmt struct {
	Line, Col int    // where it starts (1-based)
	Text      string // as written, trimmed
	Comment   string // the comment of its line, trimmed (an imported program's module path), or ""
	Kind      Kind
	Name      string       // the name it defines (Grad: the name it differentiates)
	Word      string       // the op's word as written: matmul, add, …, exp, …, relu, softmax, expand, repeat, sum, mean, max, min, box, input
	Op        sbp.Op       // Apply: the op
	Args      []string     // Apply and Box: the names it reads
	Shape     tensor.Shape // the logical shape of Name
	Sbp       sbp.NdSbp    // Input: its SBP; Box: the SBP it boxes to
	From      string       // Input: the .npy file its values come from, or ""
	Uniform   bool         // Input: written `from uniform`, its values are tensor.Uniform(Name, Shape)
	Const     bool         // Input: written `const` for input, a constant (a mask, a table of positions): it gets no gradient
	// Auto is an input written with auto for its SBP: the planner picks
	// its layout (greedy OneFlow's default, B; exact the one of least
	// time that fits the devices' memory). Its Sbp is B until then.
	Auto bool
	// Regather is a box written `regather` after its SBP (`wb = box w B
	// regather`): FSDP's rule for a gathered weight, freed after its last
	// reader in the forward and boxed from its source again for the
	// backward, so that the whole weight is not held in between.
	Regather bool
	DType    tensor.DType // the element type of Name: tensor.Int32 for an input written i32 (token ids) and what reads it as a view, else float32 (0 reads as float32)
	// Precision is an input's, as written after its SBP (f32 by
	// default, bf16, f16, i32): what the cost model counts its elements
	// at (tensor.Precision); an op's is its operands' (the planner's
	// precisions).
	Precision tensor.Precision
}

// Int reports whether s's values are int32: an input written i32, or a
// reshape of one.
func (s *Stmt) Int() bool { return s.DType == tensor.Int32 }

// Inputs lists the program's input statements, in order.
func (p *Program) Inputs() []*Stmt {
	var in []*Stmt
	for _, s := range p.Stmts {
		if s.Kind == Input {
			in = append(in, s)
		}
	}
	return in
}

// Lookup returns the statement that defines name, or nil.
func (p *Program) Lookup(name string) *Stmt {
	for _, s := range p.Stmts {
		if s.Kind != Grad && s.Name == name {
			return s
		}
	}
	return nil
}

// resultDType is the element type of op applied to args, or why the op
// cannot read one of them: int32 values (token ids) are read by gather,
// as its ids (its second argument), and by the views (reshape,
// transpose, permute, expand), which keep them int32; every other op
// computes on float32.
func resultDType(op sbp.Op, args []*Stmt) (tensor.DType, error) {
	name := op.Name()
	view := name == "reshape" || name == "transpose" || name == "permute" || name == "expand"
	for i, a := range args {
		switch {
		case name == "gather" && i == 1 && !a.Int():
			return 0, fmt.Errorf("gather's ids %s are float32; they are token ids, an input written i32 (e.g. %s = input %s B i32)", a.Name, a.Name, a.Shape.Spell())
		case name == "gather" && i == 1, view && a.Int():
		case a.Int():
			return 0, fmt.Errorf("%s holds int32 ids (i32); %s computes on float32, and only gather (its ids) and the views (reshape, transpose, permute, expand) read ids", a.Name, name)
		}
	}
	if view && args[0].Int() {
		return tensor.Int32, nil
	}
	return 0, nil
}

// intLayout refuses a partial layout of int32 ids: a sum (or max) of
// parts of token ids names no token.
func intLayout(nd sbp.NdSbp) error {
	for _, s := range nd {
		if s.Kind == sbp.Partial {
			return fmt.Errorf("ids (i32) are split (S) or whole (B), never partial: %v is not a layout of token ids", nd)
		}
	}
	return nil
}
