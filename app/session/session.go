package session

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/viz"
)

// Session is one scene being explored; see the package doc. The zero
// value is not usable: start with New.
type Session struct {
	scene  string
	fields map[string]string // what was typed, by key, for the current scene
	built  *viz.Scene        // the last scene that built from the fields
	err    error             // why the fields do not build, nil when built is current
	errKey string            // the field err is about, "" when it cannot tell

	step    int
	playing bool
	speed   float64 // steps a second
	clock   float64 // seconds played toward the next step

	hover, pin *viz.Focus
	view       View
	tutor      *Tutor // the lesson being walked, or nil

	// rev counts the changes to what the session shows (State, the
	// report); sceneRev counts the scenes built, and keys the computes.
	rev, sceneRev uint64
	comp          *computer // the compute worker, nil until StartComputing
}

// DefaultSpeed is the animation's speed in steps a second: fast enough
// to sweep a 4×4 output in under 3 s, slow enough to follow one cell.
const DefaultSpeed = 6.0

// New starts a session on spec; spec must build.
func New(spec viz.Spec) (*Session, error) {
	scene, err := viz.Build(spec)
	if err != nil {
		return nil, err
	}
	s := &Session{scene: spec.Scene, fields: maps.Clone(spec.Values), built: scene, speed: DefaultSpeed, view: Identity}
	s.step = spec.Step
	return s, nil
}

// Scene is the last scene that built.
func (s *Session) Scene() *viz.Scene { return s.built }

// Spec is the last good scene's spec at the current step: what a URL
// hash or an export writes.
func (s *Session) Spec() viz.Spec {
	sp := s.built.Spec
	sp.Step = s.step
	return sp
}

// SceneName is the scene the fields are for (it may not have built yet).
func (s *Session) SceneName() string { return s.scene }

// Keys lists the fields of the current scene, required ones first.
func (s *Session) Keys() []viz.Key { return viz.KeysOf(s.scene) }

// Field is the text typed into key.
func (s *Session) Field(key string) string { return s.fields[key] }

// Err is why the typed fields do not build, and the field it is about
// ("" when the message does not say); nil when the scene on screen is
// what the fields say.
func (s *Session) Err() (key string, err error) { return s.errKey, s.err }

// SetField types value into key and rebuilds. On an error the last good
// scene stays and Err says why.
func (s *Session) SetField(key, value string) {
	if s.fields[key] == value && s.err == nil {
		return
	}
	s.tutor = nil // typing leaves a lesson
	s.fields[key] = value
	s.rev++
	s.rebuild(key)
}

// SetScene switches to scene name, keeping the fields the two scenes
// share and taking the others from the scene's worked example.
func (s *Session) SetScene(name string) error {
	ex, ok := viz.Example(name)
	if !ok {
		return fmt.Errorf("session: unknown scene %q; the scenes are %s", name, strings.Join(viz.Scenes, ", "))
	}
	if s.tutor != nil {
		s.tutor = nil
		s.rev++
	}
	if name == s.scene {
		return nil
	}
	s.scene = name
	s.fields = maps.Clone(ex.Values)
	s.step = ex.Step
	s.rebuild("")
	if s.err != nil { // the example always builds; the kept fields may not
		s.err = fmt.Errorf("session: the worked example of %s does not build: %w", name, s.err)
	}
	return nil
}

// Show switches to spec as a whole (a link's state): its scene, every
// field and the step. A spec that does not build keeps the last good
// scene and sets Err, as typing does. A link to another scene than the
// open lesson step's (or, once answered, its reveal's) leaves the lesson,
// as typing does: moving through the step's scene stays in it.
func (s *Session) Show(spec viz.Spec) {
	if t := s.tutor; t != nil && !sameScene(spec, t.scene.Spec) && !(t.Right && sameScene(spec, s.built.Spec)) {
		s.tutor = nil
	}
	s.show(spec)
}

// sameScene reports whether a and b are the same scene, at any step.
func sameScene(a, b viz.Spec) bool {
	return a.Scene == b.Scene && maps.Equal(a.Values, b.Values)
}

// show is Show within a lesson: its step's scene, or its reveal.
func (s *Session) show(spec viz.Spec) {
	s.scene = spec.Scene
	s.fields = maps.Clone(spec.Values)
	s.step = spec.Step
	s.rev++
	s.rebuild("")
	if s.err == nil {
		s.Seek(spec.Step)
	}
}

// rebuild builds the fields (those that apply: viz.Key.Applies; a cost
// is no value without a cluster); changed is the field just typed,
// blamed for an error that names no field (viz.Blame).
func (s *Session) rebuild(changed string) {
	values := map[string]string{}
	for _, k := range s.Keys() {
		if v := strings.TrimSpace(s.fields[k.Name]); v != "" && k.Applies(s.fields) {
			values[k.Name] = v
		}
	}
	spec, err := viz.ParseSpec(s.scene, values, 0)
	var scene *viz.Scene
	if err == nil {
		scene, err = viz.Build(spec)
	}
	s.rev++
	if err != nil {
		s.err, s.errKey = err, viz.Blame(err, changed)
		return
	}
	s.built, s.err, s.errKey = scene, nil, ""
	s.hover, s.pin = nil, nil
	s.step = min(s.step, scene.Steps-1)
	s.sceneRev++
	if s.comp != nil {
		s.comp.ask(computeJob{rev: s.sceneRev, scene: scene})
	}
}

// Step is the animation's current step.
func (s *Session) Step() int { return s.step }

// Steps is how many steps the scene has.
func (s *Session) Steps() int { return s.built.Steps }

// Seek moves to step, clamped to the timeline.
func (s *Session) Seek(step int) {
	s.setStep(min(max(step, 0), s.built.Steps-1))
	s.clock = 0
}

// setStep moves to step, a change of what the session shows.
func (s *Session) setStep(step int) {
	if step != s.step {
		s.step = step
		s.rev++
	}
}

// Revision counts the changes to what the session shows: its State, its
// Report and its Results. A front end redraws its panels only when it
// changed.
func (s *Session) Revision() uint64 {
	r := s.rev
	if s.comp != nil {
		r += s.comp.finished.Load()
	}
	return r
}

// StepBy moves n steps (negative: back) and pauses, as a step button does.
func (s *Session) StepBy(n int) {
	s.setPlaying(false)
	s.Seek(s.step + n)
}

// Playing reports whether the clock runs.
func (s *Session) Playing() bool { return s.playing }

// TogglePlay plays or pauses; playing from the last step starts over.
func (s *Session) TogglePlay() {
	s.setPlaying(!s.playing)
	if s.playing && s.step == s.built.Steps-1 {
		s.Seek(0)
	}
}

// Pause stops the clock (a hidden window, a paused embed).
func (s *Session) Pause() { s.setPlaying(false) }

func (s *Session) setPlaying(on bool) {
	if on != s.playing {
		s.playing = on
		s.rev++
	}
}

// Speed is the animation's speed in steps a second.
func (s *Session) Speed() float64 { return s.speed }

// SetSpeed sets the speed, clamped to 0.25–60 steps a second.
func (s *Session) SetSpeed(v float64) {
	if v = min(max(v, 0.25), 60); v != s.speed {
		s.speed = v
		s.rev++
	}
}

// Tick advances the clock by dt seconds; at the last step it stops.
func (s *Session) Tick(dt float64) {
	if !s.playing || dt <= 0 {
		return
	}
	s.clock += dt
	n := int(s.clock * s.speed)
	if n == 0 {
		return
	}
	s.clock -= float64(n) / s.speed
	s.setStep(min(s.step+n, s.built.Steps-1))
	if s.step == s.built.Steps-1 {
		s.setPlaying(false)
		s.clock = 0
	}
}

// Hover sets what the pointer is over (nil: nothing).
func (s *Session) Hover(f *viz.Focus) {
	if !viz.SameFocus(s.hover, f) {
		s.hover = f
		s.rev++
	}
}

// Click pins f, or unpins when f is what is pinned or nothing; while a
// lesson's question is open, it answers it instead. A click on a
// program's overview (a FocusStep whose Operand is viz.OverviewOperand)
// jumps to that step, pinned, and stops playing.
func (s *Session) Click(f *viz.Focus) {
	s.rev++
	if s.answering() {
		s.answer(f)
		return
	}
	if f != nil && f.Kind == viz.FocusStep && f.Operand == viz.OverviewOperand && s.built != nil && f.Offset < s.built.Steps {
		s.setPlaying(false)
		s.setStep(f.Offset)
		s.pin = &viz.Focus{Kind: viz.FocusStep, Offset: f.Offset}
		return
	}
	if f == nil || (s.pin != nil && s.pin.Equal(*f)) {
		s.pin = nil
		return
	}
	s.pin = f
}

// Unpin drops the pin.
func (s *Session) Unpin() {
	if s.pin != nil {
		s.pin = nil
		s.rev++
	}
}

// Pinned is the pinned focus, or nil.
func (s *Session) Pinned() *viz.Focus { return s.pin }

// Focus is what is lit: the pin, else the hover.
func (s *Session) Focus() *viz.Focus {
	if s.pin != nil {
		return s.pin
	}
	return s.hover
}

// Frame is the scene's display list at the current step and focus, for a
// viewport of size sz (in scene pixels, before zoom).
func (s *Session) Frame(sz viz.Size) (viz.Frame, error) {
	return s.built.FrameLook(s.step, sz, viz.Look{Focus: s.Focus(), HideAnswers: s.answering()})
}

// Report is what the results panel shows: the open lesson's step first,
// then the scene's report, with what would answer the open question
// hidden (viz.Look.HideAnswers) until it is answered.
func (s *Session) Report() viz.Report {
	r := s.built.ReportLook(s.step, viz.Look{Focus: s.Focus(), HideAnswers: s.answering()})
	if sec, ok := s.LessonSection(); ok {
		r.Sections = append([]viz.Section{sec}, r.Sections...)
	}
	return r
}

// HitTest returns what lies under the viewport point (x, y) of a viewport
// of size sz, undoing zoom and pan.
func (s *Session) HitTest(sz viz.Size, x, y float64) (viz.Hot, bool) {
	sx, sy := s.view.ToScene(x, y)
	return s.built.HitTest(s.step, sz, sx, sy)
}

// Locate returns the viewport point at the centre of the first hot region
// that f matches: how a script hovers "out 1,2,0" as a person would.
// Where a region drawn later covers that centre (a device's shard in a
// program's step column), it is the first point of a 9×9 grid over the
// region, nearest the centre first, that the hit test gives as f.
func (s *Session) Locate(sz viz.Size, f viz.Focus) (x, y float64, err error) {
	hots, err := s.built.Hots(s.step, sz)
	if err != nil {
		return 0, 0, err
	}
	for _, h := range hots {
		if !h.Focus.Equal(f) {
			continue
		}
		for _, p := range gridPoints {
			hx, hy := h.X+h.W*p[0], h.Y+h.H*p[1]
			if got, ok := s.built.HitTest(s.step, sz, hx, hy); ok && got.Focus.Equal(f) {
				x, y := s.view.ToScreen(hx, hy)
				return x, y, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("session: %s: nothing drawn at step %d is %s", s.scene, s.step, f)
}

// gridPoints are the points Locate tries in a region, as fractions of its
// width and height: a 9×9 grid, the centre first, then by distance from it.
var gridPoints = func() [][2]float64 {
	var ps [][2]float64
	for i := 1; i <= 9; i++ {
		for j := 1; j <= 9; j++ {
			ps = append(ps, [2]float64{float64(i) / 10, float64(j) / 10})
		}
	}
	d := func(p [2]float64) float64 { return (p[0]-0.5)*(p[0]-0.5) + (p[1]-0.5)*(p[1]-0.5) }
	slices.SortStableFunc(ps, func(a, b [2]float64) int { return cmp.Compare(d(a), d(b)) })
	return ps
}()
