package viz

import (
	"fmt"
	"math"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// The results panel: what every front end (the CLI, the desktop app, the
// playground) shows beside a scene, as data, so that they show the same
// words. Report describes the layouts, the bytes and the focus; Compute
// runs the scene's op on a backend and checks it against the CPU.

// Report is what a results panel shows beside a scene, in every front end.
type Report struct{ Sections []Section }

// Section is a titled block of lines and an optional table whose first row is the header.
type Section struct {
	Title string
	Lines []string
	Table [][]string
}

// String writes the report as plain text: each title, its lines indented,
// its table in aligned columns.
func (r Report) String() string {
	var b strings.Builder
	for i, s := range r.Sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// String writes the section as plain text.
func (s Section) String() string {
	var b strings.Builder
	b.WriteString(s.Title + "\n")
	for _, l := range s.Lines {
		b.WriteString("  " + l + "\n")
	}
	width := map[int]int{}
	for _, row := range s.Table {
		for j, cell := range row {
			width[j] = max(width[j], len([]rune(cell)))
		}
	}
	for _, row := range s.Table {
		b.WriteString(" ")
		for j, cell := range row {
			fmt.Fprintf(&b, " %*s", width[j], cell)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Report describes the scene (and the focus, when f is not nil) for a
// results panel. A step out of range describes the last step; a focus
// that names nothing in the scene is reported as such in its section.
func (s *Scene) Report(step int, f *Focus) Report {
	return s.impl.report(min(max(step, 0), s.Steps-1), f)
}

// Compute runs the scene's op on arange inputs on backend b (the CPU
// reference when b is nil), checks the result against the CPU reference
// and describes it. A result past the result budget is refused with
// tensor's error before anything is allocated.
func (s *Scene) Compute(b tensor.Backend) (Section, error) {
	if b == nil {
		b = tensor.CPU{}
	}
	return s.impl.compute(b)
}

// focusSection is the report's section about f: what lines says, or why f
// names nothing in the scene.
func focusSection(f *Focus, check func(Focus) error, lines func() []string) []Section {
	if f == nil {
		return nil
	}
	if err := check(*f); err != nil {
		return []Section{{Title: "focus", Lines: []string{err.Error()}}}
	}
	return []Section{{Title: "focus", Lines: lines()}}
}

// resultSection describes a computed result beside the CPU reference's:
// the backend, the shape, whether they agree (or the largest difference)
// and the first values.
func resultSection(what string, b tensor.Backend, got, want tensor.Tensor) Section {
	sec := Section{Title: what + " on " + b.Name()}
	sec.Lines = append(sec.Lines, fmt.Sprintf("backend %s, output %v float32", b.Name(), got.Shape()))
	switch d, ok := maxDiff(got, want); {
	case !ok:
		sec.Lines = append(sec.Lines, fmt.Sprintf("differs from the CPU reference: shape %v, the CPU's %v", got.Shape(), want.Shape()))
	case d == 0:
		sec.Lines = append(sec.Lines, "matches the CPU reference")
	default:
		sec.Lines = append(sec.Lines, fmt.Sprintf("differs from the CPU reference: max difference %g", d))
	}
	sec.Lines = append(sec.Lines, formatValues(got)...)
	return sec
}

// maxDiff is the largest |got - want| over every element, and false when
// the shapes differ.
func maxDiff(got, want tensor.Tensor) (float64, bool) {
	if !got.Shape().Equal(want.Shape()) {
		return 0, false
	}
	g, err1 := tensor.Buffer[float32](got)
	w, err2 := tensor.Buffer[float32](want)
	if err1 != nil || err2 != nil || len(g) < got.NumElements() || len(w) < want.NumElements() {
		return math.Inf(1), true
	}
	d := 0.0
	for i := range got.NumElements() {
		if x := math.Abs(float64(g[i]) - float64(w[i])); x > d || x != x {
			d = x
		}
	}
	return d, true
}

// formatValues writes t's first and last values as NumPy prints a
// summarised array, as rows of its last dim: at most 4 rows (2 first, 2
// last) of at most 6 values (3 first, 3 last), so at most 24 values.
func formatValues(t tensor.Tensor) []string {
	shape := t.Shape()
	if len(shape) == 0 {
		return []string{fmt.Sprintf("value %g", t.At())}
	}
	n := t.NumElements()
	cols := shape[len(shape)-1]
	if n == 0 {
		return []string{"[] (empty)"}
	}
	rows := n / cols
	var out []string
	if len(shape) > 2 {
		out = append(out, fmt.Sprintf("values, as %d rows of the last dim:", rows))
	}
	shown := Visible(rows, 5)
	for k, r := range shown {
		open, close := " [", "]"
		if len(shape) == 1 {
			open = "["
		} else if k == 0 {
			open = "[["
		}
		if k == len(shown)-1 && len(shape) > 1 {
			close = "]]"
		}
		if r == Gap {
			out = append(out, " …")
			continue
		}
		var vals []string
		for _, c := range Visible(cols, 7) {
			if c == Gap {
				vals = append(vals, "…")
				continue
			}
			vals = append(vals, fmt.Sprintf("%g", t.At(unravel(shape, r*cols+c)...)))
		}
		out = append(out, open+strings.Join(vals, " ")+close)
	}
	return out
}
