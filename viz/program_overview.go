package viz

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// A plan of many more steps than the frame has columns (an imported
// model's thousands; overviewShown) gets an overview above its columns: every step's bytes (or,
// on a cluster, its time) as one strip, the window of columns drawn
// marked on it, the layers' module paths over it, and a click on it
// jumps to that step. Under the columns, each run of steps from one
// module path is labelled with the path: a layer's steps grouped.

const (
	progOverviewH  = 58.0 // the overview: its caption, its bars, the layers' names and a gap
	overviewBarsH  = 18.0
	overviewBarsY  = 16.0 // the bars' top under the overview's top
	overviewLabelY = 47.0 // the layers' names' baseline under the overview's top
)

// OverviewOperand is the Operand of a FocusStep that a click on the
// overview makes: a session jumps to that step (Session.Click).
const OverviewOperand = "overview"

// overviewMinSteps is the fewest steps drawn with an overview: below it
// a plan is a few windows of columns, which "« earlier" and "later »"
// page through, and the strip would only repeat the bars under them.
const overviewMinSteps = 100

// overviewShown says whether the plan is drawn with an overview: it has
// more steps than w's columns and at least overviewMinSteps.
func (s *programScene) overviewShown(w float64) bool {
	n := len(s.plan.Steps)
	return n >= overviewMinSteps && n > max(1, int(w/progMinColW))
}

// modulesOf is each step's module path, the comment of the statement
// behind it (statementsOf, at): an imported program's `# h.0.attn`; ""
// where no comment says, or the importer's own (its made constants,
// the examples).
func modulesOf(p *planner.Plan, at []int) []string {
	out := make([]string, len(p.Steps))
	for i, k := range at {
		if k < 1 || k > len(p.Program.Stmts) {
			continue
		}
		if c := p.Program.Stmts[k-1].Comment; !strings.HasPrefix(c, "made by the importer") && !strings.HasPrefix(c, "example ") {
			out[i] = c
		}
	}
	return out
}

// layerOf is the coarse group of a module path the overview labels: its
// first component and, where the second is a number (a layer's index,
// h.0), that too.
func layerOf(path string) string {
	parts := strings.SplitN(path, ".", 3)
	if len(parts) >= 2 && parts[1] != "" && strings.Trim(parts[1], "0123456789") == "" {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

// drawOverview draws the overview from x0 across w with its top at y:
// the layers' labels, a bar per pixel column as tall as the largest
// step's bytes (or time) among the steps it covers, the columns drawn
// [first, last) marked, the current step's mark; each slice of the strip
// a hot region whose click jumps there.
func (s *programScene) drawOverview(c *canvas, x0, y, w float64, first, last, now int) {
	n := len(s.plan.Steps)
	value := func(i int) float64 {
		if s.timed {
			return s.plan.Steps[i].TimeS
		}
		return float64(s.plan.Steps[i].SendBytes)
	}
	most := 0.0
	for i := range n {
		most = max(most, value(i))
	}
	at := func(i int) float64 { return x0 + w*float64(i)/float64(n) }
	top := y + overviewBarsY
	base := top + overviewBarsH
	what := "bytes each step sends"
	if s.timed {
		what = "each step's time"
	}
	caption := fmt.Sprintf("all %d steps, %s: the box marks the columns below; click to jump", n, what)
	caption, size := fitLabel(caption, FontRegular, progSmallPx-1, w)
	c.text(x0, y+11, caption, size, Muted, FontRegular, AnchorStart)
	c.add(Rect{X: x0, Y: top, W: w, H: overviewBarsH, Fill: CellFill})
	// the layers, a tick where each starts and its name under it where
	// it fits
	for i := 0; i < n; {
		layer := layerOf(s.modules[i])
		j := i + 1
		for j < n && layerOf(s.modules[j]) == layer {
			j++
		}
		if layer != "" {
			x, right := at(i), at(j)
			c.add(Line{X1: x, Y1: top, X2: x, Y2: y + overviewLabelY + 2, Color: Faint, Width: 1})
			if TextWidth(layer, FontRegular, MinText) <= right-x-4 {
				c.text(x+2, y+overviewLabelY, layer, fitText(layer, FontRegular, progSmallPx-1, right-x-4), Muted, FontRegular, AnchorStart)
			}
		}
		i = j
	}
	// a bar per step or, where the steps outnumber the pixels, per
	// pixel column, the largest value among its steps
	cols := min(n, max(1, int(w)))
	per := float64(n) / float64(cols)
	cw := w / float64(cols)
	for k := range cols {
		lo, hi := int(float64(k)*per), int(float64(k+1)*per)
		hi = max(hi, lo+1)
		v, kind := 0.0, planner.StepOp
		for i := lo; i < min(hi, n); i++ {
			if value(i) > v {
				v, kind = value(i), s.plan.Steps[i].Kind
			}
		}
		x := x0 + float64(k)*cw
		if v > 0 && most > 0 {
			h := max(1, (overviewBarsH-2)*v/most)
			col := Path
			if s.timed {
				col = ComputeInk
				if kind == planner.StepBoxing {
					col = CommInk
				}
			}
			c.add(Rect{X: x, Y: base - h, W: max(1, cw), H: h, Fill: col})
		}
		c.hot(Hot{X: x, Y: top, W: cw, H: overviewLabelY - overviewBarsY, Focus: Focus{Kind: FocusStep, Offset: min(lo, n-1), Operand: OverviewOperand}})
	}
	// the window of columns drawn, and the current step
	c.add(Rect{X: at(first), Y: top - 1, W: max(2, at(last)-at(first)), H: overviewBarsH + 2, Stroke: Ink, StrokeWidth: 1.5})
	c.add(Line{X1: at(now), Y1: top - 3, X2: at(now), Y2: base + 3, Color: Path, Width: 2})
}

// drawModuleRuns labels, on the line at y under the columns [first,
// last), each run of steps from one module path with the path, after the
// pass where a pass starts.
func (s *programScene) drawModuleRuns(c *canvas, first, last int, x0, colW, y float64) {
	for i := first; i < last; {
		j := i + 1
		for j < last && s.modules[j] == s.modules[i] && s.plan.Steps[j].Pass == s.plan.Steps[i].Pass {
			j++
		}
		label := s.modules[i]
		if i == first || s.plan.Steps[i-1].Pass != s.plan.Steps[i].Pass {
			if label == "" {
				label = string(s.plan.Steps[i].Pass)
			} else {
				label = string(s.plan.Steps[i].Pass) + " · " + label
			}
		}
		x := x0 + colW*float64(i-first)
		if s.modules[i] != "" {
			c.add(Line{X1: x + 1, Y1: y - 12, X2: x + 1, Y2: y + 3, Color: Faint, Width: 1})
		}
		if label != "" {
			t, size := fitLabel(label, FontBold, progSmallPx+1, colW*float64(j-i)-8)
			if size >= MinText {
				c.text(x+4, y, t, size, Muted, FontBold, AnchorStart)
			}
		}
		i = j
	}
}

// statementer is a scene whose steps come from statements of a program
// its front end shows as text.
type statementer interface {
	statement(step int) int
}

// Statement is the ordinal of the statement behind step among the
// statements of the scene's program as the playground's text area lays
// them out (viz.ProgramLines: placement is 0), so a front end keeps that
// line in view; -1 for a scene of no program or a step of none.
func (s *Scene) Statement(step int) int {
	if st, ok := s.impl.(statementer); ok && step >= 0 && step < s.Steps {
		return st.statement(step)
	}
	return -1
}

// statement is the ordinal of the statement behind step i
// (statementsOf).
func (s *programScene) statement(i int) int { return s.stmtOf[i] }

// statementsOf is the ordinal of the statement behind each step: its
// own for an input or a forward op, the op's for a boxing, the forward
// statement whose gradient a backward op computes (planner.Step.Of),
// else grad's.
func statementsOf(p *planner.Plan) []int {
	index := map[string]int{}
	gradAt := -1
	for k, st := range p.Program.Stmts {
		if st.Kind == program.Grad { // grad names the result it differentiates
			gradAt = k + 1
			continue
		}
		index[st.Name] = k + 1 // the placement is statement 0
	}
	of := map[string]string{}
	for _, st := range p.Steps {
		if st.Of != "" {
			of[st.Name] = st.Of
		}
	}
	out := make([]int, len(p.Steps))
	for k, st := range p.Steps {
		name := st.Name
		if st.Kind == planner.StepBoxing {
			name = st.For
		}
		forward := st.Pass == graph.Forward
		if o, ok := of[name]; ok {
			name, forward = o, true
		}
		if at, ok := index[name]; ok && forward {
			out[k] = at
		} else {
			out[k] = gradAt
		}
	}
	return out
}
