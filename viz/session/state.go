package session

import "github.com/stridelab/stridelab/viz"

// State is what a session shows, as data: what a script's `state` line
// writes and tests read, and what the playground's page mirrors.
type State struct {
	Scene      string            `json:"scene"`
	Spec       string            `json:"spec"` // the scene on screen, in the CLI's words
	Step       int               `json:"step"`
	Steps      int               `json:"steps"`
	Playing    bool              `json:"playing"`
	Speed      float64           `json:"speed"`
	Hover      *viz.Focus        `json:"hover"`
	Pinned     *viz.Focus        `json:"pinned"`
	Error      string            `json:"error"`       // "" when the fields built
	ErrorField string            `json:"error_field"` // the field the error is about
	View       View              `json:"view"`
	Fields     map[string]string `json:"fields"`
	Lesson     *LessonState      `json:"lesson"` // nil outside a lesson
}

// State returns the session's state.
func (s *Session) State() State {
	st := State{Scene: s.scene, Spec: s.Spec().String(), Step: s.step, Steps: s.built.Steps, Playing: s.playing,
		Speed: s.speed, Hover: s.hover, Pinned: s.pin, View: s.view, Fields: map[string]string{}}
	for _, k := range s.Keys() {
		st.Fields[k.Name] = s.fields[k.Name]
	}
	if s.err != nil {
		st.Error, st.ErrorField = s.err.Error(), s.errKey
	}
	st.Lesson = s.lessonState()
	return st
}
