package session

import (
	"slices"

	"github.com/stridelab/stridelab/viz"
)

// Action is something a key does. Every control has one, so the app can
// be driven from the keyboard alone (and ? lists them).
type Action int

const (
	PlayPause Action = iota
	StepBack
	StepForward
	FirstStep
	LastStep
	Slower
	Faster
	ZoomIn
	ZoomOut
	ResetView
	PanLeft
	PanRight
	PanUp
	PanDown
	Unpin
	Help
	ExportSVG
	ExportPNG
	ExportGIF
	NextLessonStep
	PrevLessonStep
	// The keyboard's focus: the arrows walk the scene's cells (viz.Scene.Move),
	// Enter pins the focused one (or answers a lesson's question with it).
	FocusLeft
	FocusRight
	FocusUp
	FocusDown
	PinFocus
)

// Binding is a key and what it does; Key is spelled as the help lists it
// and as a script's `key` line names it.
type Binding struct {
	Key    string
	Action Action
	Help   string
}

// Bindings are every key, in the order the help lists them. Keys act
// when no text field has the keyboard (Escape or a click on the scene
// leaves a field; Tab moves between fields).
var Bindings = []Binding{
	{"space", PlayPause, "play / pause"},
	{",", StepBack, "step back (as a video player steps frames)"},
	{".", StepForward, "step forward"},
	{"pageup", StepBack, "step back"},
	{"pagedown", StepForward, "step forward"},
	{"home", FirstStep, "first step"},
	{"end", LastStep, "last step"},
	{"left", FocusLeft, "focus the cell before (the arrows walk the cells)"},
	{"right", FocusRight, "focus the next cell"},
	{"up", FocusUp, "focus the cell above"},
	{"down", FocusDown, "focus the cell below"},
	{"enter", PinFocus, "pin the focused cell (in a lesson: answer with it)"},
	{"[", Slower, "slower"},
	{"]", Faster, "faster"},
	{"+", ZoomIn, "zoom in (or the wheel)"},
	{"-", ZoomOut, "zoom out"},
	{"0", ResetView, "whole scene (undo zoom and pan)"},
	{"shift+left", PanLeft, "pan left (or drag)"},
	{"shift+right", PanRight, "pan right"},
	{"shift+up", PanUp, "pan up"},
	{"shift+down", PanDown, "pan down"},
	{"escape", Unpin, "unpin (a click or enter pins); leave a lesson"},
	{"n", NextLessonStep, "lesson: next step"},
	{"b", PrevLessonStep, "lesson: previous step"},
	{"?", Help, "show / hide these keys"},
	{"s", ExportSVG, "export the scene as SVG"},
	{"p", ExportPNG, "export the scene as PNG"},
	{"g", ExportGIF, "export the whole animation as GIF"},
}

// BindingFor returns the binding of key, spelled as in Bindings.
func BindingFor(key string) (Binding, bool) {
	for _, b := range Bindings {
		if b.Key == key {
			return b, true
		}
	}
	return Binding{}, false
}

// Zoom and pan steps of the keys: √2 a press halves the area in two
// presses; 64 px is a few cells of a slide-sized grid.
const (
	zoomStep = 1.4142135623730951
	panStep  = 64.0
)

// Do applies an action that changes the session, in a viewport of size
// (w, h) (zoom keys zoom towards its centre; the arrows walk the frame
// drawn at that size). Help and the exports belong to the front end and
// do nothing here; Do reports whether it acted.
func (s *Session) Do(a Action, w, h float64) bool {
	switch a {
	case PlayPause:
		s.TogglePlay()
	case StepBack:
		s.StepBy(-1)
	case StepForward:
		s.StepBy(1)
	case FirstStep:
		s.setPlaying(false)
		s.Seek(0)
	case LastStep:
		s.setPlaying(false)
		s.Seek(s.built.Steps - 1)
	case Slower:
		s.SetSpeed(s.speed / 1.5)
	case Faster:
		s.SetSpeed(s.speed * 1.5)
	case ZoomIn:
		s.ZoomAt(zoomStep, w/2, h/2)
	case ZoomOut:
		s.ZoomAt(1/zoomStep, w/2, h/2)
	case ResetView:
		s.ResetView()
	case PanLeft:
		s.Pan(panStep, 0)
	case PanRight:
		s.Pan(-panStep, 0)
	case PanUp:
		s.Pan(0, panStep)
	case PanDown:
		s.Pan(0, -panStep)
	case Unpin:
		if s.pin == nil {
			s.CloseLesson()
		}
		s.Unpin()
	case NextLessonStep:
		s.LessonStep(1)
	case PrevLessonStep:
		s.LessonStep(-1)
	case FocusLeft, FocusRight, FocusUp, FocusDown:
		return s.MoveFocus(focusDirs[a], viz.Size{W: int(w), H: int(h)})
	case PinFocus:
		return s.PinFocus()
	default:
		return false
	}
	return true
}

// focusDirs are the arrows' directions.
var focusDirs = map[Action]viz.Dir{FocusLeft: viz.DirLeft, FocusRight: viz.DirRight, FocusUp: viz.DirUp, FocusDown: viz.DirDown}

// MoveFocus moves the keyboard's focus one place in direction d through the
// frame drawn at size sz (viz.Scene.Move), from what is lit (the pin,
// else the hover); with nothing lit, it focuses the walk's first cell.
// The keyboard's focus is the hover, as the pointer's is: lit, and said
// in Words. A pin is let go, so what is lit follows the keys (Enter pins
// again). Zoomed in, the view pans to bring the focused cell into the
// viewport. It reports whether the focus moved.
func (s *Session) MoveFocus(d viz.Dir, sz viz.Size) bool {
	f, ok := s.built.Move(s.step, sz, s.Focus(), d)
	if !ok {
		return false
	}
	s.Unpin()
	s.Hover(&f)
	s.panTo(f, sz)
	return true
}

// panTo pans, along each axis where the region f names lies partly
// outside the viewport of size sz, the least that brings it in (a region
// larger than the viewport: its top left corner), a quarter of panStep
// from the edge. A region in view (every one, unzoomed) does not move.
func (s *Session) panTo(f viz.Focus, sz viz.Size) {
	hots, err := s.built.Hots(s.step, sz)
	if err != nil {
		return
	}
	i := slices.IndexFunc(hots, func(h viz.Hot) bool { return h.Focus.Equal(f) })
	if i < 0 {
		return
	}
	h := hots[i]
	x0, y0 := s.view.ToScreen(h.X, h.Y)
	x1, y1 := s.view.ToScreen(h.X+h.W, h.Y+h.H)
	const pad = panStep / 4
	shift := func(lo, hi, size float64) float64 {
		switch {
		case lo < 0:
			return pad - lo
		case hi > size:
			return max(size-pad-hi, min(0, pad-lo))
		}
		return 0
	}
	if dx, dy := shift(x0, x1, float64(sz.W)), shift(y0, y1, float64(sz.H)); dx != 0 || dy != 0 {
		s.Pan(dx, dy)
	}
}

// PinFocus pins the keyboard's focus (the hover) as a click on it does:
// again unpins it, and while a lesson's question is open it answers
// with it. With nothing focused it does nothing and reports false.
func (s *Session) PinFocus() bool {
	f := s.Focus()
	if f == nil {
		return false
	}
	ff := *f
	ff.Index = slices.Clone(f.Index)
	s.Click(&ff)
	return true
}
