package viz

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Scene is a built scene: a timeline of Steps frames that any renderer can
// draw at any step and size, what lies under a point of a frame, and the
// scene's meaning as data (what the JSON export writes and the truth tests
// check against the kernels). Scenes are built from tensor's layouts and
// traces, sbp's shards and boxing plans and sbp/program's plans; they
// never compute a mapping of their own.
type Scene struct {
	Spec  Spec
	Title string
	Steps int // at least 1
	impl  sceneImpl
	model any

	// The last frame drawn, kept because hovering asks HitTest of the
	// frame on screen many times between steps; it keys on the step, the
	// size, the focus and whether answers are hidden.
	mu   sync.Mutex
	last *canvas
	at   struct {
		step  int
		size  Size
		focus *Focus
		hide  bool
	}
}

// sceneImpl is what a kind of scene (index, shard or program) provides: its
// frames, with a focus lit or none, its results panel and what its op
// computes (as data: results runs it).
type sceneImpl interface {
	draw(step int, f *Focus, c *canvas)
	// report is the results panel at step (in range) as l says:
	// l.Focus described, and with l.HideAnswers the lines that would give
	// an open question's answer away saying Hidden instead.
	report(step int, l Look) Report
	work() Work
	// checkFocus says why f does not belong to the scene, or nil.
	checkFocus(f Focus) error
	// describe says in one line what f (checked) means at step (in
	// range): what Scene.Describe returns.
	describe(step int, f Focus) (string, error)
	// navGroup is where f comes in the keyboard's walk (see NavOrder):
	// its group, first 0, or -1 when the keys do not walk to it.
	navGroup(f Focus) int
}

// Hot is a region of a frame that means something: a cell of an operand
// or of the output, a storage cell, a device, a program's step; its Focus
// says which.
type Hot struct {
	X, Y, W, H float64
	Focus
}

// Size is a frame's size in pixels.
type Size struct{ W, H int }

// DefaultSize is a slide's: 1280×720.
var DefaultSize = Size{1280, 720}

// Frame returns the display list of step at size sz. Its items are shared
// with the scene's cache: renderers read them and never change them.
func (s *Scene) Frame(step int, sz Size) (Frame, error) { return s.FrameFocus(step, nil, sz) }

// FrameFocus is Frame(step, sz) with f lit (f nil: exactly Frame's items).
// The hot regions are the same whatever is lit, so HitTest on the step's
// frame stays valid. A focus that names nothing in the scene (an operand
// it does not have, an index or offset out of range, a rank not placed)
// is an error.
func (s *Scene) FrameFocus(step int, f *Focus, sz Size) (Frame, error) {
	return s.FrameLook(step, sz, Look{Focus: f})
}

// Look is how a frame is drawn besides its step and size: what is lit,
// and whether an open question's answers are hidden.
type Look struct {
	Focus *Focus
	// HideAnswers draws the scene as a question sees it before it is
	// answered: the labels that would give the answer away (the offsets
	// the output cells read and the offset formula, the ranks that own a
	// cell, the values a shard holds, the bytes and SBPs of steps not yet
	// reached) are drawn as "?", and a focus lights only itself, never
	// what it maps to. The hot regions are the same as when shown.
	HideAnswers bool
}

// FrameLook is the display list of step at size sz drawn as l says. A
// focus that names nothing in the scene is an error, as for FrameFocus.
func (s *Scene) FrameLook(step int, sz Size, l Look) (Frame, error) {
	if l.Focus != nil {
		if err := s.impl.checkFocus(*l.Focus); err != nil {
			return Frame{}, err
		}
	}
	c, err := s.render(step, l.Focus, sz, false, l.HideAnswers)
	if err != nil {
		return Frame{}, err
	}
	return c.frame, nil
}

// HitTest returns what lies under (x, y) in the frame of step at size sz.
func (s *Scene) HitTest(step int, sz Size, x, y float64) (Hot, bool) {
	c, err := s.render(step, nil, sz, true, false)
	if err != nil {
		return Hot{}, false
	}
	for i := len(c.hots) - 1; i >= 0; i-- {
		h := c.hots[i]
		if x >= h.X && x < h.X+h.W && y >= h.Y && y < h.Y+h.H {
			return h, true
		}
	}
	return Hot{}, false
}

// Hots returns every meaningful region of the frame of step at size sz.
func (s *Scene) Hots(step int, sz Size) ([]Hot, error) {
	c, err := s.render(step, nil, sz, true, false)
	if err != nil {
		return nil, err
	}
	return c.hots, nil
}

// render returns the frame of step at sz with f lit, from the cache when it
// holds that frame; anyFocus takes the cached frame whatever it lights
// (hit tests: the hot regions do not depend on the focus).
func (s *Scene) render(step int, f *Focus, sz Size, anyFocus, hide bool) (*canvas, error) {
	if step < 0 || step >= s.Steps {
		return nil, fmt.Errorf("viz: %s: step %d is out of range: the scene has steps 0 to %d", s.Spec.Scene, step, s.Steps-1)
	}
	if sz.W < MinSize.W || sz.H < MinSize.H || sz.W > 4096 || sz.H > 4096 {
		return nil, fmt.Errorf("viz: a frame of %d×%d: width and height must be between 320×240 and 4096×4096", sz.W, sz.H)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last != nil && s.at.step == step && s.at.size == sz && (anyFocus || (SameFocus(s.at.focus, f) && s.at.hide == hide)) {
		return s.last, nil
	}
	c := newCanvas(sz)
	c.hide = hide
	s.impl.draw(step, f, c)
	s.last, s.at.step, s.at.size, s.at.hide = c, step, sz, hide
	s.at.focus = nil
	if f != nil {
		kept := f.clone()
		s.at.focus = &kept
	}
	return c, nil
}

// JSON returns the scene's meaning (see the index and shard models).
func (s *Scene) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s.model, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Model returns the scene's meaning as a value: an *IndexModel (the
// index scenes), a *ShardModel (the shard scenes) or a *ProgramModel
// (the program scene: its plan). JSON writes the same value.
func (s *Scene) Model() any { return s.model }

// Build builds the scene spec names, by its kind's builder. An error
// about one field's value is a *FieldError naming that field. A program
// scene's plan comes from a memo of the last few programs planned (by
// their source, strategy, cluster and cost), so building one program's scene again
// does not plan it again.
func Build(spec Spec) (*Scene, error) { return BuildContext(context.Background(), spec) }

// BuildContext is Build under ctx: planning a program, the one part of
// building a scene that can take long, reads ctx (planner.NewPlanContext)
// and stops once it is done, with an error that wraps ctx.Err(). A plan
// stopped so is not kept in the memo. The server's stills build through
// it, so a still nobody waits for any more stops drawing.
func BuildContext(ctx context.Context, spec Spec) (*Scene, error) {
	kind, err := kindOf(spec.Scene)
	if err != nil {
		return nil, err
	}
	s, err := kind.build(ctx, spec)
	if err != nil {
		return nil, err
	}
	if spec.Step >= s.Steps {
		return nil, fmt.Errorf("viz: %s: step %d is out of range: the scene has steps 0 to %d", spec.Scene, spec.Step, s.Steps-1)
	}
	return s, nil
}

// canvas collects a frame's items and hot regions.
type canvas struct {
	frame Frame
	hots  []Hot
	hide  bool // Look.HideAnswers: answer labels are "?", a focus lights only itself

	titleBottom float64 // the baseline of the title's last line (header)
}

// answer is label, or "?" while a question's answer is hidden.
func (c *canvas) answer(label string) string {
	if c.hide && label != "" {
		return "?"
	}
	return label
}

func newCanvas(sz Size) *canvas {
	return &canvas{frame: Frame{W: sz.W, H: sz.H, Background: Paper}}
}

func (c *canvas) add(items ...Item) { c.frame.Items = append(c.frame.Items, items...) }

func (c *canvas) hot(h Hot) { c.hots = append(c.hots, h) }

// text adds a line of text and returns its width.
func (c *canvas) text(x, y float64, s string, size float64, col Color, f Font, a Anchor) float64 {
	c.add(Text{X: x, Y: y, S: s, Size: size, Color: col, Font: f, Anchor: a})
	return TextWidth(s, f, size)
}
