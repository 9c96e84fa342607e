package program

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
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

// MaxStatements bounds a program: past it the source is refused (the
// planner and the scene look at every statement).
const MaxStatements = 256

var (
	nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// reserved are the language's words: no tensor may be named one.
	reserved = map[string]bool{}
)

// statementWords are the words of the statements that are not ops.
var statementWords = []string{"placement", "input", "from", "grad", "box"}

// opWordList is every op word of the language, in the package doc's
// order: a statement NAME = WORD ARGS... for each.
var opWordList = []string{"matmul", "add", "sub", "mul", "div", "max", "min",
	"exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu", "softmax", "scale",
	"expand", "repeat", "reshape", "permute", "transpose", "sum", "mean"}

func init() {
	for _, w := range append(slices.Clone(statementWords), opWordList...) {
		reserved[w] = true
	}
}

// OpWords returns every op word of the language (a new slice): what a
// test that must cover every op enumerates.
func OpWords() []string { return slices.Clone(opWordList) }

// Parse reads a program: one statement a line or several separated by
// ';', '#' to the end of a line a comment. See the package doc for the
// statements. The first fault is returned as an *Error.
func Parse(src string) (*Program, error) {
	p := &Program{Source: src}
	havePlacement := false
	for _, st := range split(src) {
		fail := func(format string, args ...any) error {
			return &Error{Line: st.line, Col: st.col, Stmt: st.text, Err: &parseErr{fmt.Sprintf(format, args...)}}
		}
		wrap := func(err error) error { return &Error{Line: st.line, Col: st.col, Stmt: st.text, Err: err} }
		if p.Grad != nil {
			return nil, fail("nothing may follow grad %s (line %d): grad comes last", p.Grad.Name, p.Grad.Line)
		}
		if len(p.Stmts) == MaxStatements {
			return nil, fail("a program has at most %d statements", MaxStatements)
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
		s.Line, s.Col, s.Text, s.Name = st.line, st.col, st.text, name
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
		s.Kind, s.Op, s.Shape = Apply, op, out
		return s, nil
	}
	switch word {
	case "":
		return nil, bad("nothing after '='")
	case "input":
		shape, rest := cut(rest)
		if shape == "" {
			return nil, bad("input needs a shape and an SBP, e.g. input 8,4 S(0)")
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
		if rest == "" {
			return nil, bad("input needs an SBP after its shape, e.g. S(0), B, or (S(0), B) on a 2-D mesh")
		}
		nd, err := sbp.ParseNd(rest)
		if err != nil {
			return nil, err
		}
		if err := sbp.Validate(sh, p.Placement, nd); err != nil {
			return nil, err
		}
		s.Kind, s.Shape, s.Sbp = Input, sh, nd
		return s, nil
	case "box":
		x, sbpText := cut(rest)
		a, err := arg(x)
		if err != nil {
			return nil, err
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
		s.Kind, s.Args, s.Shape, s.Sbp = Box, []string{a.Name}, a.Shape, nd
		return s, nil
	case "matmul", "add", "sub", "mul", "div", "max", "min":
		x, rest2 := cut(rest)
		y, extra := cut(rest2)
		if (word == "max" || word == "min") && y != "" && p.Lookup(y) == nil && looksLikeShape(y) {
			return reduce(word, x, y, extra, arg, apply)
		}
		if y == "" || extra != "" {
			return nil, bad("%s takes two names: %s A B", word, word)
		}
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		b, err := arg(y)
		if err != nil {
			return nil, err
		}
		if word == "matmul" {
			return apply(sbp.Matmul(), a, b)
		}
		op, err := tensor.ParseBinaryOp(word)
		if err != nil {
			return nil, err
		}
		return apply(sbp.Binary(op), a, b)
	case "sum", "mean":
		x, rest2 := cut(rest)
		to, extra := cut(rest2)
		return reduce(word, x, to, extra, arg, apply)
	case "softmax":
		x, rest2 := cut(rest)
		dim, extra := cut(rest2)
		if dim == "" || extra != "" {
			return nil, bad("softmax takes a name and a dim: softmax X -1 (negative counts from the end)")
		}
		d, err := strconv.Atoi(dim)
		if err != nil {
			return nil, bad("softmax's dim %q is not an integer: softmax X -1 (negative counts from the end)", dim)
		}
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		return apply(sbp.Softmax(d), a)
	case "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu":
		x, extra := cut(rest)
		if x == "" || extra != "" {
			return nil, bad("%s takes one name: %s X", word, word)
		}
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		op, _ := tensor.ParseUnaryOp(word)
		return apply(sbp.Unary(op), a)
	case "scale":
		x, rest2 := cut(rest)
		c, extra := cut(rest2)
		if c == "" || extra != "" {
			return nil, bad("scale takes a name and a number: scale X 0.5")
		}
		f, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return nil, bad("scale's factor %q is not a number: scale X 0.5", c)
		}
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		return apply(sbp.Scale(f), a)
	case "transpose", "permute", "reshape":
		return parseView(s, word, rest, arg, apply)
	case "expand", "repeat":
		x, rest2 := cut(rest)
		v, extra := cut(rest2)
		if v == "" || extra != "" {
			what := map[string]string{"expand": "SIZE (-1 keeps a dim)", "repeat": "TIMES"}[word]
			return nil, bad("%s takes a name and %s: %s X %s", word, what, word, strings.Fields(what)[0])
		}
		a, err := arg(x)
		if err != nil {
			return nil, err
		}
		n, err := tensor.ParseInts(word+" "+map[string]string{"expand": "size", "repeat": "times"}[word], v)
		if err != nil {
			return nil, err
		}
		s.Ints = n
		if word == "expand" {
			return apply(sbp.Expand(n), a)
		}
		return apply(sbp.Repeat(n), a)
	}
	return nil, bad("unknown op %q; the ops are input, matmul, add, sub, mul, div, max, min, exp, log, neg, sqrt, rsqrt, tanh, relu, softmax, scale, expand, repeat, transpose, permute, reshape, sum, mean, box (and grad NAME)", word)
}

// reduce reads "sum|max|min|mean X TARGET"; a mean divides the sum by
// the count of X's elements each output averages.
func reduce(word, x, to, extra string, arg func(string) (*Stmt, error), apply func(sbp.Op, ...*Stmt) (*Stmt, error)) (*Stmt, error) {
	if to == "" || extra != "" {
		return nil, bad("%s takes a name and a target shape: %s X 1,3,1", word, word)
	}
	a, err := arg(x)
	if err != nil {
		return nil, err
	}
	target, err := tensor.ParseShape(to)
	if err != nil {
		return nil, err
	}
	if word == "mean" {
		return apply(sbp.Mean(a.Shape, target), a)
	}
	op, _ := tensor.ParseReduceOp(word)
	return apply(sbp.Reduce(op, target), a)
}

func looksLikeShape(s string) bool { return s != "" && strings.IndexByte("0123456789-", s[0]) >= 0 }

// cut splits off the first word of s.
func cut(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// statement is one statement of the source and where it starts.
type statement struct {
	line, col int
	text      string
}

// split cuts the source into statements: at newlines and ';', after
// dropping '#' comments; empty statements are skipped.
func split(src string) []statement {
	var out []statement
	for i, line := range strings.Split(src, "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		col := 0
		for _, part := range strings.Split(line, ";") {
			text := strings.TrimRight(part, " \t\r")
			lead := len(text) - len(strings.TrimLeft(text, " \t"))
			if t := strings.TrimSpace(text); t != "" {
				out = append(out, statement{line: i + 1, col: col + lead + 1, text: t})
			}
			col += len(part) + 1
		}
	}
	return out
}
