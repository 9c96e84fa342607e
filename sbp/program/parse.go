package program

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Error is a fault in a program's source or plan, in one line: where it
// is, the statement, and what is wrong with the values involved:
//
//	program: line 4, column 1: y = matmul x w: a has 32 columns but b has 16 rows
//
// It wraps the error tensor or sbp gave, so errors.Is finds their
// sentinels (tensor.ErrShape, sbp.ErrSBP, tensor.ErrTooLarge, …).
type Error struct {
	Line, Col int    // 0 when the fault is the whole program's
	Stmt      string // the statement, as written
	Err       error
}

func (e *Error) Error() string {
	msg := strings.TrimPrefix(strings.TrimPrefix(e.Err.Error(), "sbp: "), "tensor: ")
	if e.Line == 0 {
		return "program: " + msg
	}
	return fmt.Sprintf("program: line %d, column %d: %s: %s", e.Line, e.Col, e.Stmt, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrParse is the sentinel of a statement that does not parse.
var ErrParse = errors.New("program: the statement does not parse")

// MaxSourceBytes bounds a program's text. A program is not bounded by
// its number of statements (an imported GPT-2 has about a thousand):
// what it may cost is bounded where it is spent, the exact search by its
// work bound (planner.ExactWork), a run by the tensor budget
// (tensor.SetMaxBytes), a plan's memory by its cluster's capacity.
const MaxSourceBytes = 4 << 20

var (
	nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// reserved are the language's words: no tensor may be named one.
	reserved = map[string]bool{}
)

// statementWords are the words of the statements that are not ops.
var statementWords = []string{"placement", "input", "const", "from", "i32", "f32", "bf16", "f16", "grad", "box", "optimizer", "auto", "regather"}

func init() {
	for _, w := range append(slices.Clone(statementWords), sbp.Words()...) {
		reserved[w] = true
	}
}

// OpWords returns every op word of the language (a new slice, in the
// package doc's order: a statement NAME = WORD ARGS... for each), as
// sbp's table of ops has them: what a test that must cover every op
// enumerates.
func OpWords() []string { return sbp.Words() }

// Parse reads a program: one statement a line or several separated by
// ';', '#' to the end of a line a comment. See the package doc for the
// statements. The first fault is returned as an *Error.
func Parse(src string) (*Program, error) {
	p := &Program{Source: src}
	if len(src) > MaxSourceBytes {
		return nil, &Error{Err: fmt.Errorf("the program's text is %s, more than the %s a program may be", tensor.FormatBytes(int64(len(src))), tensor.FormatBytes(MaxSourceBytes))}
	}
	havePlacement := false
	for _, st := range split(src) {
		fail := func(format string, args ...any) error {
			return &Error{Line: st.line, Col: st.col, Stmt: st.text, Err: &parseErr{fmt.Sprintf(format, args...)}}
		}
		wrap := func(err error) error { return &Error{Line: st.line, Col: st.col, Stmt: st.text, Err: err} }
		if p.Grad != nil {
			return nil, fail("nothing may follow grad %s (line %d): grad comes last", p.Grad.Name, p.Grad.Line)
		}
		word, rest := cut(st.text)
		switch {
		case word == "placement":
			if havePlacement {
				return nil, fail("the placement is given twice")
			}
			if rest == "" {
				return nil, fail("placement needs devices, e.g. placement 4, 0-3, cpu:0,1 or [[0,1],[2,3]]")
			}
			pl, err := sbp.ParsePlacement(rest)
			if err != nil {
				return nil, wrap(err)
			}
			p.Placement, havePlacement = pl, true
			continue
		case word == "optimizer":
			if p.Optimizer != nil {
				return nil, fail("the optimizer is given twice (line %d)", p.Optimizer.Line)
			}
			o, err := ParseOptimizer(rest)
			if err != nil {
				return nil, fail("%v", err)
			}
			o.Line = st.line
			p.Optimizer = o
			continue
		case word == "grad":
			name, extra := cut(rest)
			if name == "" || extra != "" {
				return nil, fail("grad takes one name: grad NAME")
			}
			def := p.Lookup(name)
			switch {
			case def == nil:
				return nil, fail("%s is not defined", name)
			case def.Kind == Input:
				return nil, fail("%s is an input, not the result of an op: grad takes a result", name)
			}
			g := &Stmt{Line: st.line, Col: st.col, Text: st.text, Kind: Grad, Name: name, Word: "grad", Shape: def.Shape}
			p.Grad = g
			p.Stmts = append(p.Stmts, g)
			continue
		}
		lhs, rhs, ok := strings.Cut(st.text, "=")
		if !ok {
			return nil, fail("want NAME = OP …, placement …, or grad NAME; %q is none of them", word)
		}
		name := strings.TrimSpace(lhs)
		if err := checkName(p, name); err != nil {
			return nil, fail("%v", err)
		}
		if !havePlacement {
			return nil, fail("no placement yet: start the program with one, e.g. placement 4")
		}
		s, err := parseDef(p, name, strings.TrimSpace(rhs))
		if err != nil {
			var perr *parseErr
			if errors.As(err, &perr) {
				return nil, fail("%s", perr.msg)
			}
			return nil, wrap(err)
		}
		s.Line, s.Col, s.Text, s.Name, s.Comment = st.line, st.col, st.text, name, st.comment
		p.Stmts = append(p.Stmts, s)
	}
	if !havePlacement {
		return nil, &Error{Err: bad("the program is empty: it needs a placement and at least one input, e.g. placement 4; x = input 8,4 S(0)")}
	}
	if len(p.Inputs()) == 0 {
		return nil, &Error{Err: bad("the program has no input: define one, e.g. x = input 8,4 S(0)")}
	}
	return p, nil
}

// parseErr is a fault of the language itself (not tensor's or sbp's).
type parseErr struct{ msg string }

func (e *parseErr) Error() string { return e.msg }

// Unwrap makes a fault of the language an ErrParse for errors.Is.
func (e *parseErr) Unwrap() error { return ErrParse }

func bad(format string, args ...any) error { return &parseErr{fmt.Sprintf(format, args...)} }

func checkName(p *Program, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a name is missing before '='")
	case !nameRE.MatchString(name):
		return fmt.Errorf("%q is not a name: use letters, digits and _, starting with a letter", name)
	case reserved[name]:
		return fmt.Errorf("%q is a word of the language and cannot name a tensor", name)
	case strings.HasPrefix(name, "grad_"):
		return fmt.Errorf("%q: names starting with grad_ are the gradients'", name)
	}
	if def := p.Lookup(name); def != nil {
		return fmt.Errorf("%s is already defined (line %d): give the result another name", name, def.Line)
	}
	return nil
}

// parseDef reads what follows NAME =.
func parseDef(p *Program, name, rhs string) (*Stmt, error) {
	word, rest := cut(rhs)
	s := &Stmt{Word: word}
	arg := func(a string) (*Stmt, error) {
		if a == "" {
			return nil, bad("%s needs a tensor's name", word)
		}
		def := p.Lookup(a)
		if def == nil {
			if a == name {
				return nil, bad("%s is used before it is defined", a)
			}
			return nil, bad("%s is not defined", a)
		}
		return def, nil
	}
	apply := func(op sbp.Op, args ...*Stmt) (*Stmt, error) {
		shapes := make([]tensor.Shape, len(args))
		for i, a := range args {
			shapes[i] = a.Shape
			s.Args = append(s.Args, a.Name)
		}
		out, err := op.OutShape(shapes)
		if err != nil {
			return nil, err
		}
		dt, err := resultDType(op, args)
		if err != nil {
			return nil, err
		}
		s.Kind, s.Op, s.Shape, s.DType = Apply, op, out, dt
		return s, nil
	}
	switch word {
	case "":
		return nil, bad("nothing after '='")
	case "input", "const":
		shape, rest := cut(rest)
		if shape == "" {
			return nil, bad("%s needs a shape and an SBP, e.g. %s 8,4 S(0)", word, word)
		}
		sh, err := tensor.ParseShape(shape)
		if err != nil {
			return nil, err
		}
		// The word from, padded so that it may open or close rest: in
		// " "+rest+" " it is at i, so in rest it starts at i.
		if i := strings.LastIndex(" "+rest+" ", " from "); i >= 0 {
			from := strings.TrimSpace((rest + " ")[i+len("from "):])
			rest = strings.TrimSpace(rest[:i])
			switch {
			case from == "":
				return nil, bad("from needs uniform or a .npy file, e.g. from uniform, from w.npy")
			case from == ValuesUniform:
				s.Uniform = true
			case strings.HasSuffix(strings.ToLower(from), ".npy"):
				s.From = from
			default:
				return nil, bad("from takes uniform (values spread over [-1, 1)) or a .npy file, not %q", from)
			}
		}
		// A precision word after the SBP: f32 (the default), bf16, f16,
		// or i32 (ids).
		if i := strings.LastIndex(rest, " "); i >= 0 {
			if pr, ok := tensor.ParsePrecision(rest[i+1:]); ok {
				rest = strings.TrimSpace(rest[:i])
				s.Precision = pr
				if pr == tensor.I32 {
					s.DType = tensor.Int32
				}
			}
		}
		if _, ok := tensor.ParsePrecision(rest); ok || rest == "" {
			return nil, bad("%s needs an SBP after its shape, e.g. S(0), B, or (S(0), B) on a 2-D mesh, or auto, and then optionally a precision: %s 8,4 S(0) bf16", word, word)
		}
		if rest == "auto" {
			// The planner's choice: B until it picks (OneFlow's default).
			rest, s.Auto = strings.TrimSpace(strings.Repeat("B ", p.Placement.MeshRank())), true
			if p.Placement.MeshRank() > 1 {
				rest = "(" + strings.Join(strings.Fields(rest), ", ") + ")"
			}
		}
		nd, err := sbp.ParseNd(rest)
		if err != nil {
			return nil, err
		}
		if err := sbp.Validate(sh, p.Placement, nd); err != nil {
			return nil, err
		}
		if s.Int() {
			if err := intLayout(nd); err != nil {
				return nil, err
			}
			if s.Uniform {
				return nil, bad("ids (i32) are whole numbers; give them from a .npy file, or leave from out (0, 1, 2, …)")
			}
		}
		s.Kind, s.Shape, s.Sbp, s.Const = Input, sh, nd, word == "const"
		return s, nil
	case "box":
		x, sbpText := cut(rest)
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		regather := false
		if t, ok := strings.CutSuffix(sbpText, "regather"); ok && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, ")")) {
			sbpText, regather = strings.TrimSpace(t), true
		}
		if sbpText == "" {
			return nil, bad("box needs an SBP to box to, e.g. box %s B", x)
		}
		nd, err := sbp.ParseNd(sbpText)
		if err != nil {
			return nil, err
		}
		if err := sbp.Validate(a.Shape, p.Placement, nd); err != nil {
			return nil, err
		}
		if a.Int() {
			if err := intLayout(nd); err != nil {
				return nil, err
			}
		}
		s.Kind, s.Args, s.Shape, s.Sbp, s.DType, s.Regather = Box, []string{a.Name}, a.Shape, nd, a.DType, regather
		return s, nil
	}
	return opDef(p, word, rest, arg, apply)
}

// opDef reads an op statement, NAME = WORD ARGS…, by the word's entry in
// sbp's table of ops (sbp.WordsOf): the op's own arguments, and the
// names it reads in the order it reads them.
func opDef(p *Program, word, rest string, arg func(string) (*Stmt, error), apply func(sbp.Op, ...*Stmt) (*Stmt, error)) (*Stmt, error) {
	meanings := sbp.WordsOf(word)
	if len(meanings) == 0 {
		return nil, bad("unknown op %q; the ops are input, %s, box (and grad NAME)", word, strings.Join(sbp.Words(), ", "))
	}
	args := strings.Fields(rest)
	w := meanings[len(meanings)-1]
	for _, m := range meanings {
		if m.Match == nil || m.Match(args, func(name string) bool { return p.Lookup(name) != nil }) {
			w = m
			break
		}
	}
	var inputs []*Stmt
	op, err := w.Build(&sbp.WordCall{Word: word, Args: args, Input: func(name string) (tensor.Shape, error) {
		a, err := arg(name)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, a)
		return a.Shape, nil
	}})
	if err != nil {
		if u, ok := errors.AsType[sbp.UsageError](err); ok {
			return nil, bad("%s", string(u))
		}
		return nil, err
	}
	return apply(op, inputs...)
}

// cut splits off the first word of s.
func cut(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// statement is one statement of the source, where it starts, and the
// comment of its line.
type statement struct {
	line, col int
	text      string
	comment   string
}

// split cuts the source into statements: at newlines and ';', after
// dropping '#' comments; empty statements are skipped.
func split(src string) []statement {
	var out []statement
	for i, line := range strings.Split(src, "\n") {
		comment := ""
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line, comment = line[:c], strings.TrimSpace(line[c+1:])
		}
		col := 0
		for _, part := range strings.Split(line, ";") {
			text := strings.TrimRight(part, " \t\r")
			lead := len(text) - len(strings.TrimLeft(text, " \t"))
			if t := strings.TrimSpace(text); t != "" {
				out = append(out, statement{line: i + 1, col: col + lead + 1, text: t, comment: comment})
			}
			col += len(part) + 1
		}
	}
	return out
}

// IsName says whether name may name a tensor of a program: letters,
// digits and _, starting with a letter or _, not a word of the language
// and not starting with grad_ (the gradients'). A writer of programs (the
// importer) checks its names by it.
func IsName(name string) bool {
	return nameRE.MatchString(name) && !reserved[name] && !strings.HasPrefix(name, "grad_")
}
