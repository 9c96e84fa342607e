package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

// A session can walk a lesson (package lessons): each step shows its
// scene; a step with a question waits for a click on the scene, judges it
// with the question's own Judge (the answer comes from the scene's model)
// and, once right, moves the scene to the state that reveals the answer.
// Typing into a field or picking a scene leaves the lesson.

// Tutor is the lesson a session walks.
type Tutor struct {
	Lesson   *lessons.Lesson
	Step     int // 1-based
	Tries    int // clicks judged on this step
	Right    bool
	Feedback string
	scene    *viz.Scene // the step's scene, as the question was asked of it
}

// LessonState is the lesson part of State.
type LessonState struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Step     int    `json:"step"`
	Steps    int    `json:"steps"`
	Heading  string `json:"heading"`
	Text     string `json:"text"`   // plain text (Markdown marks removed)
	Prompt   string `json:"prompt"` // "" when the step asks nothing
	Tries    int    `json:"tries"`
	Right    bool   `json:"right"`
	Feedback string `json:"feedback"`
}

// OpenLesson shows step (1-based) of l.
func (s *Session) OpenLesson(l *lessons.Lesson, step int) error {
	if step < 1 || step > len(l.Steps) {
		return fmt.Errorf("session: lesson %s has steps 1 to %d, not %d", l.ID, len(l.Steps), step)
	}
	st := l.Steps[step-1]
	sc, err := st.Build()
	if err != nil {
		return fmt.Errorf("session: %s step %d: %w", l.File, step, err)
	}
	s.show(st.Scene)
	s.setPlaying(false)
	s.tutor = &Tutor{Lesson: l, Step: step, scene: sc}
	s.rev++
	return nil
}

// LessonStep moves n steps through the open lesson (clamped).
func (s *Session) LessonStep(n int) {
	if s.tutor == nil {
		return
	}
	step := min(max(s.tutor.Step+n, 1), len(s.tutor.Lesson.Steps))
	if step != s.tutor.Step {
		_ = s.OpenLesson(s.tutor.Lesson, step) // every step built when the lesson loaded
	}
}

// CloseLesson leaves the lesson; the scene stays.
func (s *Session) CloseLesson() {
	if s.tutor != nil {
		s.tutor = nil
		s.rev++
	}
}

// Tutor is the open lesson, or nil.
func (s *Session) Tutor() *Tutor { return s.tutor }

// answering reports whether a click answers the open step's question.
func (s *Session) answering() bool {
	return s.tutor != nil && !s.tutor.Right && s.tutor.Lesson.Steps[s.tutor.Step-1].Question != nil
}

// answer judges a click on f as the answer to the open question; once
// right, the scene moves to the state that reveals the answer.
func (s *Session) answer(f *viz.Focus) {
	t := s.tutor
	q := t.Lesson.Steps[t.Step-1].Question
	if f == nil {
		t.Feedback = "Click a cell of the scene to answer."
		return
	}
	t.Tries++
	hot := viz.Focus{Kind: f.Kind, Operand: f.Operand, Index: f.Index, Offset: f.Offset, Rank: f.Rank}
	t.Right, t.Feedback = q.Judge(t.scene, hot)
	if t.Right {
		if a, err := q.Answer(t.scene); err == nil {
			s.show(a.Reveal)
		}
	}
}

var markdownMarks = regexp.MustCompile("[*`]")

func (s *Session) lessonState() *LessonState {
	t := s.tutor
	if t == nil {
		return nil
	}
	st := t.Lesson.Steps[t.Step-1]
	ls := &LessonState{ID: t.Lesson.ID, Title: t.Lesson.Title, Step: t.Step, Steps: len(t.Lesson.Steps),
		Heading: st.Title, Text: strings.TrimSpace(markdownMarks.ReplaceAllString(st.Text, "")),
		Tries: t.Tries, Right: t.Right, Feedback: t.Feedback}
	if st.Question != nil {
		ls.Prompt = st.Question.Prompt(t.scene)
	}
	return ls
}

// LessonSection is the open lesson as a results-panel section.
func (s *Session) LessonSection() (viz.Section, bool) {
	ls := s.lessonState()
	if ls == nil {
		return viz.Section{}, false
	}
	sec := viz.Section{Title: fmt.Sprintf("lesson: %s, step %d of %d: %s", ls.Title, ls.Step, ls.Steps, ls.Heading)}
	for _, p := range strings.Split(ls.Text, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			sec.Lines = append(sec.Lines, p)
		}
	}
	if ls.Prompt != "" {
		sec.Lines = append(sec.Lines, "", "QUESTION: "+ls.Prompt)
		if !ls.Right {
			sec.Lines = append(sec.Lines, "(click your answer in the scene)")
		}
	}
	if ls.Feedback != "" {
		mark := "not yet: "
		if ls.Right {
			mark = "right: "
		}
		sec.Lines = append(sec.Lines, mark+ls.Feedback)
	}
	sec.Lines = append(sec.Lines, "", "n: next step · b: previous step · escape: leave the lesson")
	return sec, true
}
