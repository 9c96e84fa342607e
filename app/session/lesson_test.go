package session

import (
	"testing"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

// Every step of every built-in lesson opens in a session; a question is
// answered right by a click on its answer (judged by the question), the
// scene then shows the reveal, and typing leaves the lesson.
func TestSessionWalksEveryLesson(t *testing.T) {
	ls, s := builtinLessons(t)
	for _, l := range ls {
		for _, st := range l.Steps {
			if err := s.OpenLesson(l, st.N); err != nil {
				t.Fatalf("%s step %d: %v", l.ID, st.N, err)
			}
			if got := s.State().Lesson; got == nil || got.Step != st.N || got.ID != l.ID {
				t.Fatalf("%s step %d: state %+v", l.ID, st.N, got)
			}
			if st.Question == nil {
				continue
			}
			sc, _ := st.Build()
			a, err := st.Question.Answer(sc)
			if err != nil {
				t.Fatalf("%s step %d: %v", l.ID, st.N, err)
			}
			var f viz.Focus
			switch {
			case len(a.Targets) > 0:
				tg := a.Targets[0]
				f = viz.Focus{Kind: tg.Kind, Operand: tg.Operand, Index: tg.Index, Offset: tg.Offset, Rank: tg.Rank}
			default: // holds: any cell inside the rank's ranges
				idx := make([]int, len(a.Ranges))
				for i, r := range a.Ranges {
					idx[i] = r[0]
				}
				f = viz.Focus{Kind: viz.FocusCell, Operand: "global", Index: idx}
			}
			s.Click(&f)
			got := s.State().Lesson
			if !got.Right || got.Tries != 1 || got.Feedback == "" {
				t.Errorf("%s step %d: a click on the answer %s: %+v", l.ID, st.N, a.Text, got)
			}
			if s.Spec().String() != (viz.Spec{Scene: a.Reveal.Scene, Values: a.Reveal.Values, Step: a.Reveal.Step}).String() {
				t.Errorf("%s step %d: after the answer the scene is %s, want the reveal %s", l.ID, st.N, s.Spec(), a.Reveal)
			}
		}
	}
	s.SetField("shape", "2,1")
	if s.Tutor() != nil {
		t.Errorf("typing into a field should leave the lesson")
	}
}

// TestWordsHideTheAnswerWhileAQuestionIsOpen: hovering a cell while a
// question waits names the cell only; once answered, the words say all.
func TestWordsHideTheAnswerWhileAQuestionIsOpen(t *testing.T) {
	ls, s := builtinLessons(t)
	for _, l := range ls {
		for _, st := range l.Steps {
			if st.Question == nil {
				continue
			}
			if err := s.OpenLesson(l, st.N); err != nil {
				t.Fatal(err)
			}
			hots, err := s.Scene().Hots(s.Step(), viz.DefaultSize)
			if err != nil || len(hots) == 0 {
				t.Fatalf("%s step %d: no hot region (%v)", l.ID, st.N, err)
			}
			f := hots[len(hots)/2].Focus
			s.Hover(&f)
			if w := s.State().Words; w != f.String() {
				t.Errorf("%s step %d, question open: words %q, want only %q", l.ID, st.N, w, f.String())
			}
			s.CloseLesson()
			s.Hover(&f)
			if w, _ := s.Scene().Describe(s.Step(), f); s.State().Words != w {
				t.Errorf("%s step %d, no question: words %q, want %q", l.ID, st.N, s.State().Words, w)
			}
			return
		}
	}
	t.Fatal("no lesson asks a question")
}

// builtinLessons returns the built-in lessons and a session to walk them.
func builtinLessons(t *testing.T) ([]*lessons.Lesson, *Session) {
	t.Helper()
	ls, err := lessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(mustExample("expand"))
	if err != nil {
		t.Fatal(err)
	}
	return ls, s
}
