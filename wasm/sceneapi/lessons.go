//go:build js && wasm

package sceneapi

import (
	"fmt"
	"syscall/js"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// lessonList is every built-in lesson for the playground's lessons menu
// and lesson pages: {lessons: [{id, title, source, summary, steps: [{n,
// title, html, hash, question}]}]}, the text as HTML (lessons.TextHTML)
// and each step's scene as a link's hash. A question is answered in the
// frame (stridelab.frame.lesson, then a click), judged by its own model.
func lessonList(js.Value) (any, error) {
	ls, err := lessons.Builtin()
	if err != nil {
		return nil, err
	}
	type step struct {
		N        int    `json:"n"`
		Title    string `json:"title"`
		HTML     string `json:"html"`
		Hash     string `json:"hash"`
		Question bool   `json:"question"`
	}
	type lesson struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Source  string `json:"source"`
		Summary string `json:"summary"`
		Steps   []step `json:"steps"`
	}
	out := []lesson{}
	for _, l := range ls {
		ll := lesson{ID: l.ID, Title: l.Title, Source: l.Source, Summary: l.Summary}
		for _, st := range l.Steps {
			html, err := lessons.TextHTML(st.Text)
			if err != nil {
				return nil, err
			}
			ll.Steps = append(ll.Steps, step{N: st.N, Title: st.Title, HTML: html, Hash: st.Scene.Hash(), Question: st.Question != nil})
		}
		out = append(out, ll)
	}
	return map[string]any{"lessons": out}, nil
}

// lessonRoute reads or writes a lesson's place in the URL hash
// (lessons.Route, #/lesson/ID/STEP?done=…), so the page never spells the
// grammar itself: {hash} → {id, step, done, hash} or null when the hash is
// not a lesson's; {id, step, done} → the same with the hash written.
func lessonRoute(req js.Value) (any, error) {
	ls, err := lessons.Builtin()
	if err != nil {
		return nil, err
	}
	var r lessons.Route
	if h := jsvalue.Field(req, "hash"); h.Type() == js.TypeString {
		var ok bool
		if r, ok = lessons.ParseRoute(h.String(), ls); !ok {
			return nil, nil
		}
	} else {
		l := lessons.Find(ls, jsvalue.Field(req, "id").String())
		if l == nil {
			return nil, fmt.Errorf("stridelab.lessonRoute: no lesson %q", jsvalue.Field(req, "id").String())
		}
		r = lessons.Route{ID: l.ID, Step: min(max(jsvalue.Field(req, "step").Int(), 1), len(l.Steps))}
		if d := jsvalue.Field(req, "done"); d.Truthy() {
			done, err := jsvalue.Ints(req, "done")
			if err != nil {
				return nil, err
			}
			for _, n := range done {
				r = r.Answered(n)
			}
		}
	}
	return map[string]any{"id": r.ID, "step": r.Step, "done": append([]int{}, r.Done...), "hash": r.String()}, nil
}

// lessonAnswers gives, for a test, a right and a wrong click on a step's
// question ({id, step, width, height} → {right: focus, wrong: focus}),
// both judged by the question itself over the regions the scene draws at
// width×height (the size a frame laid it out for, frame.state().layout;
// default lessons.Size: a narrow frame may leave some of a program's
// steps out).
func lessonAnswers(req js.Value) (any, error) {
	ls, err := lessons.Builtin()
	if err != nil {
		return nil, err
	}
	l := lessons.Find(ls, jsvalue.Field(req, "id").String())
	n := jsvalue.Field(req, "step").Int()
	if l == nil || n < 1 || n > len(l.Steps) || l.Steps[n-1].Question == nil {
		return nil, fmt.Errorf("stridelab.lessonAnswers: no question at %s step %d", jsvalue.Field(req, "id").String(), n)
	}
	st := l.Steps[n-1]
	sc, err := st.Build()
	if err != nil {
		return nil, err
	}
	size := lessons.Size
	if w, h := jsvalue.Field(req, "width"), jsvalue.Field(req, "height"); w.Type() == js.TypeNumber && h.Type() == js.TypeNumber {
		size = viz.Size{W: w.Int(), H: h.Int()}
	}
	hots, err := sc.Hots(st.Scene.Step, size)
	if err != nil {
		return nil, err
	}
	var right, wrong *viz.Focus
	for _, h := range hots {
		if ok, _ := st.Question.Judge(sc, h.Focus); ok {
			f := h.Focus
			right = &f
			break
		}
	}
	// A wrong click of the answer's kind, else any wrong click (where
	// every cell of that kind is right: a rank that holds them all).
	for pass := 0; pass < 2 && wrong == nil && right != nil; pass++ {
		for _, h := range hots {
			if ok, _ := st.Question.Judge(sc, h.Focus); !ok && (pass == 1 || (h.Kind == right.Kind && h.Operand == right.Operand)) {
				f := h.Focus
				wrong = &f
				break
			}
		}
	}
	if right == nil || wrong == nil {
		return nil, fmt.Errorf("stridelab.lessonAnswers: %s step %d: the scene draws no right and wrong click", l.ID, n)
	}
	return map[string]any{"right": right, "wrong": wrong}, nil
}
