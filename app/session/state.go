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
	// Words say what the focus (the pin, else the hover) means, in one
	// line, as viz.Scene.Describe gives it: what a screen reader says.
	// While a lesson's question is open they only name the focus, so
	// they do not give the answer away; "" when nothing is focused.
	Words string `json:"words"`
	// Statement is the ordinal of the program statement behind the
	// step (viz.Scene.Statement; the placement is 0), which the
	// playground keeps in view in its text area; -1 for none.
	Statement int `json:"statement"`
	// Layout is how the front end drawing the scene laid it out (its
	// size, scale and smallest text); nil where nothing draws it.
	Layout *viz.FrameLayout `json:"layout,omitempty"`
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
	st.Words = s.Words()
	st.Statement = s.built.Statement(s.step)
	return st
}

// Words say what the focus means (see State.Words).
func (s *Session) Words() string {
	f := s.Focus()
	if f == nil {
		return ""
	}
	if s.answering() {
		return f.String()
	}
	w, err := s.built.Describe(s.step, *f)
	if err != nil {
		return err.Error()
	}
	return w
}
