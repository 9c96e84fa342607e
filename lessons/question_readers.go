package lessons

import (
	"fmt"
	"strconv"

	"github.com/stridelab/stridelab/viz"
)

// askReaders is "readers x[5]": which output cells read storage offset 5
// of x? The learner clicks one of them in the output grid; the answer is
// every drawn cell whose reads in the index model hold that element, and
// the reveal lights them with the scene's --offset where it takes one.
type askReaders struct{}

func (askReaders) form() form {
	return form{name: "readers", usage: "readers x[…]",
		about: target{viz.FocusStorage, "", "a storage element, e.g. readers x[5]"},
		click: target{viz.FocusCell, "out", "click a cell of the output grid"}}
}

func (k askReaders) prompt(q *Question, _ *viz.Scene) string {
	return fmt.Sprintf("Which output cells read %s? Predict them, then %s that reads it.", q.About, k.form().click.what)
}

func (askReaders) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	m, err := indexModel(q, sc)
	if err != nil {
		return nil, err
	}
	ol, ok := m.Operands[q.About.Operand]
	if !ok {
		return nil, fmt.Errorf("the scene has no operand %s", q.About.Operand)
	}
	if q.About.Offset < 0 || q.About.Offset >= ol.Storage {
		return nil, fmt.Errorf("%s is outside %s's storage of %d elements", q.About, q.About.Operand, ol.Storage)
	}
	a := &Answer{Reveal: sc.Spec}
	var names []string
	for _, c := range m.Cells {
		for _, r := range c.Reads {
			if r.Operand == q.About.Operand && r.Offset == q.About.Offset {
				t := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: c.Index}
				a.Targets = append(a.Targets, t)
				names = append(names, t.String())
				break
			}
		}
	}
	if len(a.Targets) == 0 {
		return nil, fmt.Errorf("no drawn output cell reads %s", q.About)
	}
	if takesOffset(q, sc) {
		a.Reveal.Values = map[string]string{}
		for k, v := range sc.Spec.Values {
			a.Reveal.Values[k] = v
		}
		a.Reveal.Values["offset"] = strconv.Itoa(q.About.Offset)
	}
	n := len(names)
	a.Text = listOf(clip(names, 8), "and")
	cells := "cell reads"
	if n > 1 {
		cells = "cells read"
	}
	a.Why = fmt.Sprintf("%d drawn output %s %s: %s", n, cells, q.About, a.Text)
	if n > 1 {
		a.Why += fmt.Sprintf(" (stride 0 on %s's broadcast dims sends them all to one element)", q.About.Operand)
	}
	return a, nil
}

// shown: the scene's --offset must not already light the readers.
func (askReaders) shown(q *Question, sc *viz.Scene, _ *Answer) error {
	if takesOffset(q, sc) && sc.Spec.Get("offset") == strconv.Itoa(q.About.Offset) {
		return fmt.Errorf("the scene's --offset %d already lights the readers: drop it (the reveal adds it)", q.About.Offset)
	}
	return nil
}

func (askReaders) clicked(_ *viz.Scene, t viz.Focus) viz.Focus { return t }

// takesOffset reports whether the reveal can light q.About's readers
// with the scene's --offset (the first operand of a scene that takes it).
func takesOffset(q *Question, sc *viz.Scene) bool {
	first := map[string]string{"expand": "x", "repeat": "x", "view": "x", "binary": "a"}[sc.Spec.Scene]
	return first != "" && first == q.About.Operand
}
