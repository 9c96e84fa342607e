package lessons

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// askReads is "reads out[1,2,0]" and "reads out[1,2] from b": which
// storage element(s) does this output cell read? The learner clicks a
// storage cell (or, in a reduce, a cell of the input's grid); the answer
// is the cell's reads in the index model, explained by the offset formula
// from tensor's trace of the operand's layout.
type askReads struct{}

func (askReads) form() form {
	return form{name: "reads", usage: "reads out[…]", from: true,
		about: target{viz.FocusCell, "out", "an output cell, e.g. reads out[1,2,0]"},
		click: target{viz.FocusStorage, "", "click a storage cell, in the strip under the grid"}}
}

func (k askReads) prompt(q *Question, sc *viz.Scene) string {
	if sc.Spec.Scene == "reduce" {
		return fmt.Sprintf("Which elements of x does %s combine? Predict them, then click one of them, in x's grid or its storage strip.", q.About)
	}
	from := "storage element"
	if q.From != "" {
		from = "element of " + q.From + "'s storage"
	}
	return fmt.Sprintf("Which %s does %s read? Predict it, then %s.", from, q.About, k.form().click.what)
}

func (askReads) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	m, err := indexModel(q, sc)
	if err != nil {
		return nil, err
	}
	if err := inShape(q.About.Index, m.OutShape, "out"); err != nil {
		return nil, err
	}
	pos := -1
	for i, c := range m.Cells {
		if slices.Equal(c.Index, q.About.Index) {
			pos = i
		}
	}
	if pos < 0 {
		return nil, fmt.Errorf("%s is elided from the drawing (the output %v is drawn in part): ask about a drawn cell", q.About, m.OutShape)
	}
	if _, ok := m.Operands[q.From]; q.From != "" && !ok {
		return nil, fmt.Errorf("the scene has no operand %s", q.From)
	}
	a := &Answer{Reveal: sc.Spec}
	a.Reveal.Step = pos
	var names []string
	var reads []viz.Read
	for _, r := range m.Cells[pos].Reads {
		if q.From != "" && r.Operand != q.From {
			continue
		}
		reads = append(reads, r)
		t := viz.Focus{Kind: viz.FocusStorage, Operand: r.Operand, Offset: r.Offset}
		if !a.Matches(t) {
			a.Targets = append(a.Targets, t)
			names = append(names, t.String())
		}
	}
	if m.Scene == "reduce" {
		op := sc.Spec.Get("op")
		if op == "" {
			op = "sum"
		}
		a.Text = listOf(clip(names, 8), "and")
		a.Why = fmt.Sprintf("%s is the %s of the %d elements %s (the x cells that agree with it on every kept axis)", q.About, op, len(names), a.Text)
		return a, nil
	}
	a.Text = listOf(names, "and")
	var why []string
	for _, r := range reads {
		f, err := formula(m, r, q.About.Index)
		if err != nil {
			return nil, err
		}
		why = append(why, f)
	}
	a.Why = strings.Join(why, "; ")
	return a, nil
}

// shown: the step must not already select the asked cell, which wires
// its reads (the reveal goes there).
func (askReads) shown(q *Question, sc *viz.Scene, a *Answer) error {
	if step := sc.Spec.Step; a.Reveal.Step == step {
		return fmt.Errorf("step %d of the scene already selects %s and wires its reads: ask at another --step (the reveal goes to step %d)", step, q.About, step)
	}
	return nil
}

// clicked: a cell of an input's grid (a reduce draws its input beside the
// output) stands for the storage element it reads, through the operand's
// layout in the model.
func (askReads) clicked(sc *viz.Scene, t viz.Focus) viz.Focus {
	m, ok := sc.Model().(*viz.IndexModel)
	if !ok || t.Kind != viz.FocusCell || t.Operand == "out" {
		return t
	}
	ol, ok := m.Operands[t.Operand]
	if !ok {
		return t
	}
	l, err := tensor.NewLayout(ol.Shape, ol.Strides, ol.Offset)
	if err != nil || len(t.Index) != l.Rank() {
		return t
	}
	return viz.Focus{Kind: viz.FocusStorage, Operand: t.Operand, Offset: l.Offset(t.Index)}
}

// formula writes out how out[idx] reaches r through the operand's layout,
// from tensor's trace, and checks that it lands where the model says.
func formula(m *viz.IndexModel, r viz.Read, idx []int) (string, error) {
	ol := m.Operands[r.Operand]
	l, err := tensor.NewLayout(ol.Shape, ol.Strides, ol.Offset)
	if err != nil {
		return "", err
	}
	var pre string
	at := idx
	if !slices.Equal(ol.Shape, m.OutShape) {
		// repeat: the kernel reads the expanded view at the output
		// cell's row-major position (the last reshape is a copy).
		at, err = rowMajor(m.OutShape, idx, ol.Shape)
		if err != nil {
			return "", err
		}
		pre = fmt.Sprintf("out[%s] is element [%s] of the expanded view %v, so ", joinInts(idx), joinInts(at), ol.Shape)
	}
	tr, err := l.Trace(at)
	if err != nil {
		return "", err
	}
	if tr.Offset != r.Offset {
		return "", fmt.Errorf("the trace of %v gives %s offset %d but the scene's model says %d", at, r.Operand, tr.Offset, r.Offset)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s offset = %d", pre, r.Operand, tr.Base)
	for _, t := range tr.Terms {
		if t.Stride < 0 {
			fmt.Fprintf(&b, " + %d·(%d)", t.Index, t.Stride)
		} else {
			fmt.Fprintf(&b, " + %d·%d", t.Index, t.Stride)
		}
		if t.Broadcast {
			b.WriteString(" (broadcast)")
		}
	}
	fmt.Fprintf(&b, " = %d", tr.Offset)
	return b.String(), nil
}

// rowMajor is the index of shape `to` at the row-major position that idx
// has in shape `from`, both positions from tensor's contiguous strides.
func rowMajor(from tensor.Shape, idx []int, to tensor.Shape) ([]int, error) {
	f, err := tensor.Contiguous(from)
	if err != nil {
		return nil, err
	}
	t, err := tensor.Contiguous(to)
	if err != nil {
		return nil, err
	}
	n := f.Offset(idx)
	at := make([]int, t.Rank())
	for d := range at {
		at[d] = n / max(t.Stride(d), 1) % max(t.Dim(d), 1)
	}
	return at, nil
}
