//go:build js && wasm

package jsapi

import (
	"syscall/js"

	"github.com/stridelab/stridelab/lessons"
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
