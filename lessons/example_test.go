package lessons_test

import (
	"fmt"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

// A front end's loop over one step: build the scene at the step's state,
// ask, judge the focus under the learner's click, then reveal.
func Example() {
	src := `---
id: strides
title: Strides
source: an example
summary: One question about stride 0.
---

## Stride 0

Expanding [3, 1] to [3, 4] reads each row's one element four times.

scene: expand --shape 3,1 --size 3,4
ask: reads out[2,3]
wrong: {clicked} is another row's element.
`
	l, err := lessons.Parse("strides.md", []byte(src))
	if err == nil {
		err = l.Check()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	st := l.Steps[0]
	sc, _ := st.Build()
	q := st.Question
	fmt.Println(q.Prompt(sc))

	// The learner clicks storage cell 1; the front end's HitTest returned
	// this focus (found here among the frame's hot regions).
	hots, _ := sc.Hots(st.Scene.Step, lessons.Size)
	for _, h := range hots {
		if h.Kind == viz.FocusStorage && h.Offset == 1 {
			ok, feedback := q.Judge(sc, h.Focus)
			fmt.Println(ok, feedback)
		}
	}
	a, _ := q.Answer(sc)
	fmt.Println("answer:", a.Text, "— reveal at step", a.Reveal.Step)
	// Output:
	// Which storage element does out[2,3] read? Predict it, then click a storage cell, in the strip under the grid.
	// false x[1] is another row's element. Check: x offset = 0 + 2·1 + 3·0 (broadcast) = 2.
	// answer: x[2] — reveal at step 11
}
