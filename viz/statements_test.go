package viz

import (
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// statements is what the parser makes of src: the placement and each
// statement's text, or its error.
func statements(t *testing.T, src string) []string {
	t.Helper()
	p, err := program.Parse(src)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	out := []string{p.Placement.String()}
	for _, s := range p.Stmts {
		out = append(out, s.Text)
	}
	return out
}

// ProgramLines and ProgramOneLine change how a program is laid out, never
// what it says: the parser reads the same statements from both, and
// each is its own fixed point.
func TestProgramLayouts(t *testing.T) {
	cases := []struct{ src, lines, oneLine string }{
		{"placement 4; x = input 8,4 S(0); y = sum x 1,1; grad y",
			"placement 4\nx = input 8,4 S(0)\ny = sum x 1,1\ngrad y",
			"placement 4; x = input 8,4 S(0); y = sum x 1,1; grad y"},
		{"# a data-parallel layer\nplacement 2   \nx = input 4,4 S(0); w = input 4,2 B  # the weight; replicated\n\ny = matmul x w\n",
			"# a data-parallel layer\nplacement 2\nx = input 4,4 S(0)\nw = input 4,2 B  # the weight; replicated\n\ny = matmul x w\n",
			"placement 2; x = input 4,4 S(0); w = input 4,2 B; y = matmul x w"},
		{"placement [[0,1],[2,3]] ;; x = input 4,4 (S(0), B)#mesh\n  ;  ",
			"placement [[0,1],[2,3]]\nx = input 4,4 (S(0), B)  #mesh\n",
			"placement [[0,1],[2,3]]; x = input 4,4 (S(0), B)"},
		{"", "", ""},
	}
	for _, c := range cases {
		if got := ProgramLines(c.src); got != c.lines {
			t.Errorf("ProgramLines(%q) = %q, want %q", c.src, got, c.lines)
		}
		if got := ProgramOneLine(c.src); got != c.oneLine {
			t.Errorf("ProgramOneLine(%q) = %q, want %q", c.src, got, c.oneLine)
		}
		if c.src == "" {
			continue
		}
		want := statements(t, c.src)
		if strings.HasPrefix(want[0], "error: ") {
			t.Fatalf("%q: %s", c.src, want[0])
		}
		for _, laid := range []string{c.lines, c.oneLine, ProgramLines(c.oneLine), ProgramOneLine(c.lines)} {
			if got := statements(t, laid); !slices.Equal(got, want) {
				t.Errorf("%q parses to %q, but its layout %q to %q", c.src, want, laid, got)
			}
		}
		if again := ProgramLines(c.lines); again != c.lines {
			t.Errorf("ProgramLines is not its own fixed point on %q: %q", c.lines, again)
		}
		if again := ProgramOneLine(c.oneLine); again != c.oneLine {
			t.Errorf("ProgramOneLine is not its own fixed point on %q: %q", c.oneLine, again)
		}
	}
}
