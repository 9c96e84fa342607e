package live

import (
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
)

// pointer is where the pointer is in window logical pixels, and a drag
// in progress.
type pointer struct {
	x, y       float64
	down       bool
	dragged    bool
	downX      float64
	downY      float64
	scriptOnly bool // a script moves the pointer; the real mouse is ignored
	// seen is the real mouse as last read: the pointer acts only when it
	// moves or its button changes, so a hover set another way (the
	// browser's frame.hover, the keyboard) stays until the mouse moves.
	seen struct {
		x, y int
		down bool
		ok   bool
	}
}

// readInput reads the mouse, the wheel and the keyboard once a tick
// (Update calls it unless a script drives the pointer).
func (a *App) readInput() {
	x, y := ebiten.CursorPosition()
	down := ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	// The pointer acts when it moves or presses: one resting where the
	// window opens lights nothing until it moves.
	if m := &a.ptr.seen; m.ok && (m.x != x || m.y != y || m.down != down) {
		m.x, m.y, m.down = x, y, down
		a.pointerAt(float64(x)/a.scale, float64(y)/a.scale, down)
	} else if !m.ok {
		m.x, m.y, m.down, m.ok = x, y, down, true
	}
	if _, wy := ebiten.Wheel(); wy != 0 && a.inScene(a.ptr.x, a.ptr.y) {
		vx, vy := a.fit().in(a.ptr.x, a.ptr.y)
		a.s.ZoomAt(math.Pow(1.2, wy), vx, vy)
	}
	a.keys()
}

// keys applies the bindings while no text field has the keyboard.
func (a *App) keys() {
	if inpututil.IsKeyJustPressed(ebiten.KeyEscape) && a.ctl.typing() {
		a.ctl.release() // Escape leaves a field first
		return
	}
	if a.ctl.typing() {
		return
	}
	for _, r := range ebiten.AppendInputChars(nil) {
		if b, ok := session.BindingFor(string(r)); ok && strings.ContainsRune("?[]+-0spgnb,.", r) {
			a.act(b.Action)
		}
	}
	shift := ebiten.IsKeyPressed(ebiten.KeyShift)
	for key, name := range namedKeys {
		if !inpututil.IsKeyJustPressed(key) && !(repeats(key) && repeating(key)) {
			continue
		}
		if shift && isArrow(key) {
			name = "shift+" + name
		}
		if b, ok := session.BindingFor(name); ok {
			a.act(b.Action)
		}
	}
}

// namedKeys are the keys Bindings name that type no character.
var namedKeys = map[ebiten.Key]string{
	ebiten.KeySpace: "space", ebiten.KeyArrowLeft: "left", ebiten.KeyArrowRight: "right",
	ebiten.KeyArrowUp: "up", ebiten.KeyArrowDown: "down", ebiten.KeyHome: "home", ebiten.KeyEnd: "end",
	ebiten.KeyEscape: "escape", ebiten.KeyNumpadAdd: "+", ebiten.KeyNumpadSubtract: "-",
	ebiten.KeyEnter: "enter", ebiten.KeyNumpadEnter: "enter", ebiten.KeyPageUp: "pageup", ebiten.KeyPageDown: "pagedown",
}

// repeats reports whether holding k repeats it: the arrows walk on, page
// up and page down step on.
func repeats(k ebiten.Key) bool {
	return isArrow(k) || k == ebiten.KeyPageUp || k == ebiten.KeyPageDown
}

func isArrow(k ebiten.Key) bool {
	return k == ebiten.KeyArrowLeft || k == ebiten.KeyArrowRight || k == ebiten.KeyArrowUp || k == ebiten.KeyArrowDown
}

// repeating is true on the ticks a held key repeats: after a 300 ms
// wait, 10 times a second, as a text field repeats.
func repeating(k ebiten.Key) bool {
	d := inpututil.KeyPressDuration(k)
	tps := ebiten.TPS()
	if tps <= 0 { // SyncWithFPS: a tick a frame, about 60 a second
		tps = 60
	}
	first := tps * 3 / 10
	return d > first && (d-first)%(max(tps/10, 1)) == 0
}

// act does what a key or a button does.
func (a *App) act(act session.Action) {
	sz := a.fit().size
	switch act {
	case session.Help:
		a.help = !a.help
	case session.NextLessonStep, session.PrevLessonStep:
		a.s.Do(act, 0, 0)
		a.ctl.resetScroll()
	case session.ExportSVG, session.ExportPNG, session.ExportGIF:
		a.status = a.export(map[session.Action]string{session.ExportSVG: "svg", session.ExportPNG: "png", session.ExportGIF: "gif"}[act])
	default:
		a.s.Do(act, float64(sz.W), float64(sz.H))
	}
}

// Act does what a key or a button does, by the key's name in
// session.Bindings (the browser's transport calls it).
func (a *App) Act(key string) error {
	b, ok := session.BindingFor(key)
	if !ok {
		return fmt.Errorf("live: no key %q", key)
	}
	a.act(b.Action)
	return nil
}

// inScene reports whether the window point (logical) lies on the scene.
func (a *App) inScene(x, y float64) bool {
	return image.Pt(int(x), int(y)).In(sceneRect(a.opt.Width, a.opt.Height, a.opt.Embed))
}

// pointerAt moves the pointer (hover), and presses or releases it: a
// press and release in place clicks (pin), a press and move drags (pan).
func (a *App) pointerAt(x, y float64, down bool) {
	p := &a.ptr
	if p.down && down && a.inScene(p.downX, p.downY) {
		if dx, dy := x-p.x, y-p.y; p.dragged || math.Hypot(x-p.downX, y-p.downY) > 4 {
			p.dragged = true
			k := a.fit().k
			a.s.Pan(dx/k, dy/k)
		}
	}
	if down && !p.down {
		p.downX, p.downY, p.dragged = x, y, false
	}
	click := p.down && !down && !p.dragged && a.inScene(x, y)
	p.x, p.y, p.down = x, y, down
	if !a.inScene(x, y) {
		a.s.Hover(nil)
		return
	}
	fit := a.fit()
	vx, vy := fit.in(x, y)
	hot, ok := a.s.HitTest(fit.size, vx, vy)
	var f *viz.Focus
	if ok {
		ff := hot.Focus
		f = &ff
	}
	a.s.Hover(f)
	if click {
		a.ctl.release() // a click on the scene takes the keyboard from a field
		a.s.Click(f)
	}
}
