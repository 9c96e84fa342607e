package live

import (
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// Options start the app.
type Options struct {
	Spec          viz.Spec // the scene to start on
	Width, Height int      // the window in logical pixels (default 1280×720)
	// Embed leaves out the sidebar: the playground's page has the fields
	// and the results in HTML and drives the scene through the API.
	Embed bool
	// Paused starts with the animation stopped (an embed on a teaching page).
	Paused bool
	// Compute runs the results panel's op (results.Compute) on Backend
	// (nil: the CPU reference); nil computes nothing (the playground's
	// frame, whose page computes the results itself).
	Compute session.ComputeFunc
	Backend tensor.Backend
	// Export writes the scene on screen at step as format ("svg", "png"
	// or "gif") under name (e.g. "expand-step5.svg"): natively a file in
	// the working directory drawn by the headless renderers, in the
	// browser a download the page makes.
	Export func(name, format string, scene *viz.Scene, step int) error
	// For tests and scripts: draw Frames frames, write the last as PNG
	// to Screenshot and stop; replay Script; report frame times to FPS.
	Screenshot string
	Frames     int
	Script     []session.Event
	FPS        io.Writer
	// Until closes the app after this long (0: when the window closes).
	Until time.Duration
	// OnState is called from Update whenever what the session shows
	// changed (the playground's page mirrors it in its URL and results).
	OnState func(session.State)
	// Lesson and LessonStep open a built-in lesson at a step at start.
	Lesson     string
	LessonStep int
	// OnFirstDraw is called once the first frame with the scene is drawn
	// (the playground measures its time to first scene).
	OnFirstDraw func()
	// OnSleep, when set, is told that the loop sleeps (true: at the end
	// of each tick that leaves nothing moving, until input or a Post
	// wakes it) and that a Post woke it (false). In the browser the
	// frame's page then holds back the animation frames Ebitengine asks
	// for while it sleeps (web/frame.js).
	OnSleep func(asleep bool)
}

// App is the interactive renderer as an ebiten.Game: Update reads input
// once per tick into the session, Draw paints what the session says.
type App struct {
	opt   Options
	s     *session.Session
	ctl   *controls
	scale float64 // device pixels per logical pixel

	// The scene is painted into its own image, again only where what it
	// shows changed: most ticks just copy it.
	canvas sceneCanvas
	// screenBounds is the screen's size when last drawn whole.
	screenBounds image.Rectangle
	ptr          pointer
	help         bool
	status       string
	ticks        int
	times        []time.Duration // per-frame durations, for FPS
	last         time.Time
	lastTick     time.Time
	started      time.Time
	script       *player
	done         error        // ebiten.Termination once a screenshot run is over
	posted       []func(*App) // work other goroutines asked for, run in Update
	postMu       sync.Mutex

	// What Update decided the next Draw shows: the scene's display list
	// (with the help over it), where it goes, and the results panel's
	// sections, rebuilt only when the session's revision changes.
	frame       viz.Frame
	frameAt     Transform
	shown       uint64          // the session revision the results and OnState are of (0: none yet)
	layout      viz.FrameLayout // how the last frame prepared was laid out (State.Layout)
	layoutShown viz.FrameLayout // the layout OnState was last told of
	secs        []viz.Section
	ctlShown    string // what syncControls last synced, to skip it when nothing changed
	firstShown  bool   // OnFirstDraw was called

	// sleeps: the loop runs Update and Draw only when asked (input, a
	// Post, or awake at the end of a tick), not 60 times a second on a
	// scene where nothing moves. changed is the tick on which what the
	// app shows last changed.
	sleeps  bool
	slept   bool // the last tick let the loop sleep: the next is not a frame later
	changed int

	// What Ebitengine reported: the outside size LayoutF was given, and
	// what Draw did (drawn once; the screen's pixels when a shot was
	// asked for). Update acts on them.
	outside  [2]float64
	drawn    bool
	shotPath string      // a screenshot Update asked the next Draw for
	shot     *image.RGBA // its pixels, taken by Draw
}

// New builds the app on o.Spec; the spec must build.
func New(o Options) (*App, error) {
	if o.Width == 0 {
		o.Width, o.Height = 1280, 720
	}
	if mw, mh := minSize(o.Embed); o.Width < mw || o.Height < mh {
		return nil, fmt.Errorf("live: a window of %d×%d: it must be at least %d×%d to fit the controls and a scene", o.Width, o.Height, mw, mh)
	}
	s, err := session.New(o.Spec)
	if err != nil {
		return nil, err
	}
	a := &App{opt: o, s: s, scale: 1}
	if !o.Embed && o.Compute != nil { // embedded, the page shows the results (and computes them itself)
		s.StartComputing(o.Backend, o.Compute)
	}
	if len(o.Script) > 0 {
		a.script = &player{events: o.Script}
		a.ptr.scriptOnly = true
	}
	// A script steps the animation itself and a screenshot shows the step
	// asked for, so both start paused: their runs repeat exactly.
	if !o.Paused && o.Screenshot == "" && a.script == nil {
		s.TogglePlay()
	}
	a.buildControls(a.scale)
	if o.Lesson != "" {
		if err := a.OpenLesson(o.Lesson, o.LessonStep); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Session is the app's state (the browser API reads and drives it).
func (a *App) Session() *session.Session { return a.s }

// Update reads input, advances the clock and the script.
func (a *App) Update() error {
	if a.done != nil {
		return a.done
	}
	now := time.Now()
	if a.started.IsZero() {
		a.started = now
	}
	if a.opt.FPS != nil { // FPS runs tick once a frame (SyncWithFPS)
		if !a.last.IsZero() {
			a.times = append(a.times, now.Sub(a.last))
		}
		a.last = now
	}
	if a.opt.Until > 0 && time.Since(a.started) >= a.opt.Until {
		return ebiten.Termination
	}
	if err := a.afterDraw(); err != nil {
		return err
	}
	a.resize()
	if s := ebiten.Monitor().DeviceScaleFactor(); s != a.scale && s > 0 {
		a.scale = s
		a.buildControls(s)
	}
	if !a.ptr.scriptOnly {
		a.readInput()
	}
	if a.script != nil {
		if err := a.script.step(a); err != nil {
			return err
		}
	}
	a.runPosted()
	if !ebiten.IsFocused() && a.opt.Screenshot == "" && a.script == nil {
		a.s.Pause() // paused while the window is hidden or in the background
	}
	a.s.Tick(a.tick())
	a.refresh()
	a.ctl.update() // first: ebitenui makes a widget's parts on its first update
	if sig := fmt.Sprint(a.s.Revision(), a.status, a.opt.Width, a.opt.Height, a.scale); sig != a.ctlShown {
		a.ctlShown = sig
		a.syncControls()
		a.changed = a.ticks
	}
	a.prepareFrame()
	a.ticks++
	if a.opt.Screenshot != "" && a.script == nil && a.ticks >= max(a.opt.Frames, 1) && a.shotPath == "" {
		a.shotPath = a.opt.Screenshot // the next Draw keeps its pixels; the next Update writes them
	}
	a.slept = a.sleeps && !a.awake()
	if a.sleeps && !a.slept {
		ebiten.ScheduleFrame()
	}
	if a.slept && a.opt.OnSleep != nil {
		a.opt.OnSleep(true)
	}
	return nil
}

// settleTicks is how long the app keeps ticking after what it shows
// changed, for what follows a change by a tick or two (the controls'
// layout, the results panel, the first frames' fonts).
const settleTicks = 30

// awake reports whether the app needs its next tick though no input
// comes: the animation plays, a field has the keyboard (its cursor
// blinks), a key or a button is held (keys repeat, a drag pans), the
// values are being computed, or what it shows changed a moment ago.
// Otherwise the loop sleeps until input or a Post wakes it: a still
// scene costs no CPU (on SwiftShader a paused scene redrawn 60 times a
// second took a quarter of a core).
func (a *App) awake() bool {
	return a.s.Playing() || a.ctl.typing() || a.ticks-a.changed < settleTicks || a.s.Computing() ||
		len(inpututil.AppendPressedKeys(nil)) > 0 || len(inpututil.AppendJustReleasedKeys(nil)) > 0 ||
		ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft) || len(ebiten.AppendTouchIDs(nil)) > 0
}

// afterDraw acts on what the last Draw did: the first frame drawn, and
// the pixels of a screenshot asked for, written to its file.
func (a *App) afterDraw() error {
	if a.drawn && !a.firstShown {
		a.firstShown = true
		if a.opt.OnFirstDraw != nil {
			a.opt.OnFirstDraw()
		}
	}
	if a.shot == nil {
		return nil
	}
	path, img := a.shotPath, a.shot
	a.shotPath, a.shot = "", nil
	if err := writePNG(path, img); err != nil {
		return err
	}
	if a.script == nil || a.script.finished {
		return ebiten.Termination // a screenshot run, or a script's last shot, ends the app
	}
	return nil
}

// resize takes the outside size LayoutF was given as the window's.
func (a *App) resize() {
	if a.outside[0] == 0 {
		return
	}
	mw, mh := minSize(a.opt.Embed)
	a.opt.Width, a.opt.Height = max(int(a.outside[0]), mw), max(int(a.outside[1]), mh)
}

// refresh rebuilds the results panel's sections and tells OnState, when
// the session's revision changed since the last tick.
func (a *App) refresh() {
	rev := a.s.Revision() + 1 // +1: revision 0 is a state to show too
	if rev == a.shown && a.layout == a.layoutShown {
		return
	}
	a.shown, a.layoutShown = rev, a.layout
	if !a.opt.Embed {
		res, _ := a.s.Results()
		a.secs = append(withWords(a.s.Report().Sections, a.s.Words(), a.s.Tutor() != nil), res)
	}
	if a.opt.OnState != nil {
		a.opt.OnState(a.state())
	}
}

// state is the session's state with the frame's layout.
func (a *App) state() session.State {
	st := a.s.State()
	if a.layout.Width > 0 {
		l := a.layout
		st.Layout = &l
	}
	return st
}

// withWords puts the focus's words (State.Words: what the playground's
// live region speaks) at the top of the results panel, under the open
// lesson's step, so the desktop's reader reads what the keys or the
// pointer focused.
func withWords(secs []viz.Section, words string, lesson bool) []viz.Section {
	if words == "" {
		return secs
	}
	at := 0
	if lesson && len(secs) > 0 {
		at = 1
	}
	return append(secs[:at:at], append([]viz.Section{{Title: "focus", Lines: []string{words}}}, secs[at:]...)...)
}

// prepareFrame builds the display list the next Draw paints: the scene at
// the session's step and focus, the help over it, through the fitting
// and the zoom and pan.
func (a *App) prepareFrame() {
	fit := a.fit()
	f, err := a.s.Frame(fit.size)
	if err != nil {
		a.status = err.Error()
		return
	}
	if a.help {
		f.Items = append(append([]viz.Item{}, f.Items...), helpFrame(fit.size).Items...)
	}
	v, d := a.s.View(), a.scale
	a.layout = f.Layout(fit.k * v.Zoom)
	a.frame = f
	a.frameAt = Transform{OffX: d * (fit.x0 + fit.k*v.PanX), OffY: d * (fit.y0 + fit.k*v.PanY), Scale: d * fit.k * v.Zoom}
}

// tick is the time a tick advances the animation: a fixed 1/60 s when a
// script or a screenshot drives the app (so runs repeat exactly), else
// the time since the last tick (at most 0.1 s, so a stall does not jump),
// and 1/60 s again after the loop slept.
func (a *App) tick() float64 {
	now := time.Now()
	defer func() { a.lastTick = now }()
	if a.script != nil || a.opt.Screenshot != "" || a.lastTick.IsZero() || a.slept {
		return 1.0 / 60
	}
	return min(now.Sub(a.lastTick).Seconds(), 0.1)
}

// Frame is the scene's display list as the app draws it now: at the
// session's step and focus, answers hidden while a lesson's question is
// open, at the size the viewport lays it out for (before zoom and pan).
func (a *App) Frame() (viz.Frame, error) { return a.s.Frame(a.fit().size) }

// Locate is the window point (logical pixels) at the centre of the drawn
// region f names, through the zoom and pan: where a pointer hovers it.
func (a *App) Locate(f viz.Focus) (x, y float64, err error) {
	fit := a.fit()
	vx, vy, err := a.s.Locate(fit.size, f)
	if err != nil {
		return 0, 0, err
	}
	x, y = fit.out(vx, vy)
	return x, y, nil
}

// OpenLesson opens step (1-based) of the built-in lesson id.
func (a *App) OpenLesson(id string, step int) error {
	ls, err := lessons.Builtin()
	if err != nil {
		return err
	}
	l := lessons.Find(ls, id)
	if l == nil {
		ids := make([]string, len(ls))
		for i, l := range ls {
			ids[i] = l.ID
		}
		return fmt.Errorf("live: no lesson %q; the lessons are %s", id, strings.Join(ids, ", "))
	}
	return a.s.OpenLesson(l, step)
}

func (a *App) pickScene(name string) {
	if err := a.s.SetScene(name); err != nil {
		a.status = err.Error()
	}
}

// Layout is LayoutF in whole pixels (Ebitengine calls LayoutF).
func (a *App) Layout(w, h int) (int, int) {
	fw, fh := a.LayoutF(float64(w), float64(h))
	return int(fw), int(fh)
}

// LayoutF makes the screen as many device pixels as the window has. It
// records the outside size; the next Update takes it as the window's.
func (a *App) LayoutF(w, h float64) (float64, float64) {
	a.outside = [2]float64{w, h}
	mw, mh := minSize(a.opt.Embed)
	return float64(max(int(w), mw)) * a.scale, float64(max(int(h), mh)) * a.scale
}

// Draw paints what Update prepared: the scene (with the help over it)
// and the controls. It changes no state: it only records that it drew,
// and keeps the screen's pixels when Update asked for a screenshot.
func (a *App) Draw(screen *ebiten.Image) {
	// The screen keeps last frame's pixels (SetScreenClearedEveryFrame is
	// off): only the layers that changed are drawn again. The scene is
	// opaque and copied over its rect; the widgets' layer is transparent
	// over the scene, so either can change alone.
	full := screen.Bounds() != a.screenBounds
	a.screenBounds = screen.Bounds()
	if full {
		screen.Fill(nrgba(panelBG))
		a.canvas.invalidate()
	}
	if a.frame.W > 0 { // the scene's rect of the screen, brought up to date (see sceneCanvas)
		r := scaleRect(sceneRect(a.opt.Width, a.opt.Height, a.opt.Embed), a.scale)
		a.canvas.show(screen.SubImage(r).(*ebiten.Image), a.frame, a.frameAt)
	}
	a.ctl.draw(screen, full)
	a.drawn = true
	if a.shotPath != "" && a.shot == nil {
		a.shot = screenImage(screen, screen.Bounds())
	}
}

// results are what the results panel shows: the scene's report and the
// values the session's compute worker computed, as of the last Update.
func (a *App) results() []viz.Section { return a.secs }

// resultsText is the results as plain text (a script's state file).
func (a *App) resultsText() string { return viz.Report{Sections: a.results()}.String() }

// Post asks for fn to run on the game's goroutine at the next tick: how
// other goroutines (the browser's calls) change the session safely.
func (a *App) Post(fn func(*App)) {
	a.postMu.Lock()
	a.posted = append(a.posted, fn)
	a.postMu.Unlock()
	if a.sleeps {
		ebiten.ScheduleFrame() // wake the loop to run it
		if a.opt.OnSleep != nil {
			a.opt.OnSleep(false)
		}
	}
}

func (a *App) runPosted() {
	a.postMu.Lock()
	fns := a.posted
	a.posted = nil
	a.postMu.Unlock()
	for _, fn := range fns {
		fn(a)
	}
}

// FrameTimes are the durations between drawn frames so far.
func (a *App) FrameTimes() []time.Duration { return a.times }

// Run opens the window and runs the app until it is closed (or a
// screenshot run ends).
func Run(o Options) error {
	a, err := New(o)
	if err != nil {
		return err
	}
	return RunApp(a)
}

// RunApp runs a built app (the browser frame builds it first, to hand
// its API to the page).
func RunApp(a *App) error {
	o := a.opt
	ebiten.SetWindowTitle("stridelab — " + a.s.Spec().String())
	ebiten.SetWindowSize(a.opt.Width, a.opt.Height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	mw, mh := minSize(o.Embed)
	ebiten.SetWindowSizeLimits(mw, mh, -1, -1)
	ebiten.SetScreenClearedEveryFrame(false) // Draw redraws only what changed
	if runtime.GOOS == "js" && o.FPS == nil && o.Until == 0 && o.Screenshot == "" && a.script == nil {
		// In the browser, tick only when something moves (awake) or wakes
		// the app: input, a Post. Runs that time frames or end after a
		// while tick always. (FPSModeVsyncOffMinimum is deprecated since
		// v2.5 in favour of SetScreenClearedEveryFrame, which saves the
		// GPU's drawing but not the tick and the present: the whole cost
		// on a software GPU. On the desktop, GLFW's wait for events did
		// not wake for ScheduleFrame under Xvfb: the app stopped after 5
		// ticks, so the desktop ticks always.)
		ebiten.SetFPSMode(ebiten.FPSModeVsyncOffMinimum) //nolint:staticcheck // see above
		// One Update a frame: at 60 TPS a frame soon after a forced one
		// (an input event's) runs no Update, and the Post that asked for
		// it would wait for the next input.
		ebiten.SetTPS(ebiten.SyncWithFPS)
		a.sleeps = true
	}
	if o.FPS != nil {
		ebiten.SetVsyncEnabled(false) // measure what a frame costs, not the monitor's rate
		ebiten.SetTPS(ebiten.SyncWithFPS)
	}
	err := ebiten.RunGame(a)
	a.s.Close()
	if errors.Is(err, ebiten.Termination) {
		err = nil
	}
	if o.FPS != nil {
		reportFPS(o.FPS, a.times)
	}
	return err
}
