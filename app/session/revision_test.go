package session

import (
	"encoding/json"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestRevisionFollowsState: whatever a person does, the revision changes
// exactly when the state (what the session shows) does: a front end that
// redraws only on a new revision never misses a change, and a still
// session costs it nothing.
func TestRevisionFollowsState(t *testing.T) {
	s, err := New(mustExample("expand"))
	if err != nil {
		t.Fatal(err)
	}
	cell := &viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{1, 1, 2}}
	same := &viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{1, 1, 2}}
	acts := []struct {
		name string
		do   func()
	}{
		{"hover a cell", func() { s.Hover(cell) }},
		{"hover the same cell again", func() { s.Hover(same) }},
		{"hover nothing", func() { s.Hover(nil) }},
		{"click (pin)", func() { s.Click(cell) }},
		{"unpin", func() { s.Unpin() }},
		{"unpin again", func() { s.Unpin() }},
		{"step forward", func() { s.StepBy(1) }},
		{"seek where it is", func() { s.Seek(s.Step()) }},
		{"play", func() { s.TogglePlay() }},
		{"tick a little", func() { s.Tick(0.01) }},
		{"tick a step", func() { s.Tick(0.5) }},
		{"pause", func() { s.Pause() }},
		{"pause again", func() { s.Pause() }},
		{"faster", func() { s.Do(Faster, 800, 600) }},
		{"zoom", func() { s.Do(ZoomIn, 800, 600) }},
		{"pan", func() { s.Do(PanLeft, 800, 600) }},
		{"reset the view", func() { s.Do(ResetView, 800, 600) }},
		{"reset it again", func() { s.Do(ResetView, 800, 600) }},
		{"type a bad size", func() { s.SetField("size", "4,5,3") }},
		{"type a good size", func() { s.SetField("size", "4,3,3") }},
		{"type the same size", func() { s.SetField("size", "4,3,3") }},
		{"pick a scene", func() { _ = s.SetScene("reduce") }},
		{"pick it again", func() { _ = s.SetScene("reduce") }},
		{"show a link", func() { s.Show(mustExample("boxing")) }},
		{"last step", func() { s.Do(LastStep, 800, 600) }},
	}
	state := func() string {
		b, _ := json.Marshal(s.State())
		return string(b)
	}
	for _, a := range acts {
		before, rev := state(), s.Revision()
		a.do()
		changed := state() != before
		if moved := s.Revision() != rev; moved != changed {
			t.Errorf("%s: state changed %v, revision changed %v", a.name, changed, moved)
		}
	}
}
