package session

import (
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// press does what key does in a session drawn at the default size.
func press(t *testing.T, s *Session, key string) bool {
	t.Helper()
	b, ok := BindingFor(key)
	if !ok {
		t.Fatalf("no key %q", key)
	}
	return s.Do(b.Action, float64(viz.DefaultSize.W), float64(viz.DefaultSize.H))
}

func expandSession(t *testing.T) *Session {
	t.Helper()
	ex, _ := viz.Example("expand")
	s, err := New(ex)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStepKeys: "," and page up step back, "." and page down forward,
// as the arrows did before they walked the cells; the arrows leave the
// step alone.
func TestStepKeys(t *testing.T) {
	s := expandSession(t)
	for _, c := range []struct {
		key  string
		want int
	}{{".", 1}, {"pagedown", 2}, {".", 3}, {",", 2}, {"pageup", 1}, {"right", 1}, {"left", 1}, {"down", 1}, {"end", s.Steps() - 1}, {"home", 0}} {
		press(t, s, c.key)
		if s.Step() != c.want || s.Playing() {
			t.Errorf("after %q: step %d, playing %v; want step %d, paused", c.key, s.Step(), s.Playing(), c.want)
		}
	}
}

// TestArrowsWalkAndEnterPins: the first arrow focuses the first output
// cell, the next ones walk the cells (the focus is the hover: lit and said
// in Words), Enter pins, an arrow moves on from the pin, Enter on the pin
// unpins, Escape unpins.
func TestArrowsWalkAndEnterPins(t *testing.T) {
	s := expandSession(t)
	if press(t, s, "enter") || s.Pinned() != nil {
		t.Fatalf("enter with nothing focused pins %v", s.Pinned())
	}
	check := func(hover string, pinned string) {
		t.Helper()
		st := s.State()
		if got := focusString(st.Hover); got != hover {
			t.Errorf("hover %s, want %s", got, hover)
		}
		if got := focusString(st.Pinned); got != pinned {
			t.Errorf("pinned %s, want %s", got, pinned)
		}
		lit := s.Focus()
		if lit == nil {
			return
		}
		want, err := s.Scene().Describe(s.Step(), *lit)
		if err != nil || st.Words != want {
			t.Errorf("words %q, want %q (%v)", st.Words, want, err)
		}
	}
	press(t, s, "down")
	check("out[0,0,0]", "nothing")
	press(t, s, "right")
	press(t, s, "right")
	check("out[0,0,2]", "nothing")
	press(t, s, "right") // the row's end: the next row
	check("out[0,1,0]", "nothing")
	press(t, s, "left")
	check("out[0,0,2]", "nothing")
	press(t, s, "enter")
	check("out[0,0,2]", "out[0,0,2]")
	press(t, s, "left") // moves on from the pin, and lets it go
	check("out[0,0,1]", "nothing")
	press(t, s, "enter")
	press(t, s, "enter")
	check("out[0,0,1]", "nothing")
	press(t, s, "enter")
	press(t, s, "escape")
	check("out[0,0,1]", "nothing")
	if press(t, s, "up") {
		t.Errorf("up from the first row moved to %v", s.Focus())
	}
}

func focusString(f *viz.Focus) string {
	if f == nil {
		return "nothing"
	}
	return f.String()
}

// TestEnterAnswersALesson: for every question of the built-in lessons
// whose answer is on the keyboard's walk, the right arrow walks to it
// and Enter answers it right, as a click does; Enter on a wrong cell
// first counts a wrong try.
func TestEnterAnswersALesson(t *testing.T) {
	ls, s := builtinLessons(t)
	answered := 0
	for _, l := range ls {
		for _, st := range l.Steps {
			if st.Question == nil {
				continue
			}
			sc, _ := st.Build()
			a, err := st.Question.Answer(sc)
			if err != nil || len(a.Targets) == 0 {
				continue
			}
			tg := a.Targets[0]
			want := viz.Focus{Kind: tg.Kind, Operand: tg.Operand, Index: tg.Index, Offset: tg.Offset, Rank: tg.Rank}
			if err := s.OpenLesson(l, st.N); err != nil {
				t.Fatal(err)
			}
			order, _ := s.Scene().NavOrder(s.Step(), viz.DefaultSize)
			at := -1
			for i, h := range order {
				if h.Focus.Equal(want) {
					at = i
				}
			}
			if at < 0 {
				continue // not on the walk (an operand's cell): the mouse's
			}
			press(t, s, "right")
			tries := 0
			if at > 0 { // a wrong answer first
				press(t, s, "enter")
				tries++
				if got := s.State().Lesson; got.Right || got.Tries != 1 {
					t.Errorf("%s step %d: enter on %v, not the answer %v: %+v", l.ID, st.N, s.Focus(), want, got)
				}
			}
			for range at {
				press(t, s, "right")
			}
			if f := s.Focus(); f == nil || !f.Equal(want) {
				t.Fatalf("%s step %d: %d right arrows focus %v, want %v", l.ID, st.N, at+1, f, want)
			}
			press(t, s, "enter")
			if got := s.State().Lesson; !got.Right || got.Tries != tries+1 {
				t.Errorf("%s step %d: enter on the answer %v: %+v", l.ID, st.N, want, got)
			}
			answered++
			s.CloseLesson()
		}
	}
	if answered < 3 {
		t.Errorf("only %d questions answered from the keyboard, want at least 3", answered)
	}
}

// TestArrowsKeepTheFocusInView: unzoomed, walking every cell leaves the
// view alone; zoomed in 8×, each arrow pans (if it must) so the focused
// cell lies inside the viewport.
func TestArrowsKeepTheFocusInView(t *testing.T) {
	sz := viz.DefaultSize
	for _, zoom := range []float64{1, 8} {
		s := expandSession(t)
		s.ZoomAt(zoom, 0, 0)
		order, _ := s.Scene().NavOrder(s.Step(), sz)
		for i := range order {
			press(t, s, "right")
			if zoom == 1 && s.View() != Identity {
				t.Fatalf("unzoomed, key %d moved the view to %+v", i+1, s.View())
			}
			h := order[i]
			if f := s.Focus(); f == nil || !f.Equal(h.Focus) {
				t.Fatalf("key %d focuses %v, want %v", i+1, f, h.Focus)
			}
			x0, y0 := s.View().ToScreen(h.X, h.Y)
			x1, y1 := s.View().ToScreen(h.X+h.W, h.Y+h.H)
			if x0 < 0 || y0 < 0 || (x1 > float64(sz.W) && x1-x0 <= float64(sz.W)) || (y1 > float64(sz.H) && y1-y0 <= float64(sz.H)) {
				t.Errorf("zoom %v: %v lies at (%.0f,%.0f)–(%.0f,%.0f), outside the %v viewport", zoom, h.Focus, x0, y0, x1, y1, sz)
			}
		}
	}
}
