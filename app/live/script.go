package live

import (
	"encoding/json"
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
)

// player replays a script, one event a tick (wait N: N ticks), through
// the paths a mouse and a keyboard take: the pointer goes through
// pointerAt, keys through act, typing through the field's own widget.
type player struct {
	events []session.Event
	next   int
	wait   int
	field  string // the field that has the keyboard
	// finished: every event ran; the app stops after the last screenshot.
	finished bool
	sweep    int // frames of a sweep left
	swept    int // output cells hovered so far
}

// sweepOnce moves the pointer to the next drawn output cell.
func (p *player) sweepOnce(a *App) error {
	fit := a.fit()
	hots, err := a.s.Scene().Hots(a.s.Step(), fit.size)
	if err != nil {
		return err
	}
	var cells []int
	for i, h := range hots {
		if h.Kind == viz.FocusCell && h.Operand == "out" {
			cells = append(cells, i)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	// Stride through the cells so the pointer jumps around the grid.
	h := hots[cells[(p.swept*37)%len(cells)]]
	p.swept++
	x, y := fit.out(a.s.View().ToScreen(h.X+h.W/2, h.Y+h.H/2))
	a.pointerAt(x, y, false)
	return nil
}

func (p *player) step(a *App) error {
	if a.shotPath != "" {
		return nil // a screenshot waits for the next Draw: no event may overtake it
	}
	if p.wait > 0 {
		p.wait--
		return nil
	}
	if p.sweep > 0 {
		p.sweep--
		return p.sweepOnce(a)
	}
	if p.next >= len(p.events) {
		if p.finished {
			return nil // the last screenshot is taken after this tick's Draw
		}
		p.finished = true
		if a.opt.Screenshot == "" {
			return ebiten.Termination
		}
		a.shotPath = a.opt.Screenshot
		return nil
	}
	e := p.events[p.next]
	p.next++
	fail := func(err error) error { return fmt.Errorf("live: script line %d: %v", e.Line, err) }
	switch e.Op {
	case "wait":
		p.wait = e.N
	case "sweep":
		p.sweep = e.N
	case "hover":
		x, y, err := a.Locate(e.Focus)
		if err != nil {
			return fail(err)
		}
		a.pointerAt(x, y, false)
	case "move":
		a.pointerAt(e.X, e.Y, false)
	case "click":
		a.pointerAt(a.ptr.x, a.ptr.y, true)
		a.pointerAt(a.ptr.x, a.ptr.y, false)
	case "drag":
		x, y := a.ptr.x, a.ptr.y
		a.pointerAt(x, y, true)
		a.pointerAt(x+e.X/2, y+e.Y/2, true)
		a.pointerAt(x+e.X, y+e.Y, true)
		a.pointerAt(x+e.X, y+e.Y, false)
	case "key":
		b, _ := session.BindingFor(e.Text)
		a.act(b.Action)
	case "scene":
		a.pickScene(e.Text)
	case "lesson":
		if err := a.OpenLesson(e.Text, e.N); err != nil {
			return fail(err)
		}
	case "field":
		if !hasKey(a.s.Keys(), e.Text) {
			return fail(fmt.Errorf("scene %s has no field %s", a.s.SceneName(), e.Text))
		}
		a.ctl.focusField(e.Text)
		p.field = e.Text
	case "type":
		if p.field == "" {
			return fail(fmt.Errorf("no field has the keyboard: name one with `field KEY` first"))
		}
		a.ctl.showText(p.field, e.Text)
		a.s.SetField(p.field, e.Text) // as the field's change handler does on a keystroke
	case "screenshot":
		a.shotPath = e.Text
	case "state":
		b, err := json.MarshalIndent(struct {
			session.State
			Results string `json:"results"`
		}{a.state(), a.resultsText()}, "", " ")
		if err == nil {
			err = writeFile(e.Text, append(b, '\n'))
		}
		if err != nil {
			return fail(err)
		}
	}
	return nil
}

func hasKey(keys []viz.Key, name string) bool {
	for _, k := range keys {
		if k.Name == name {
			return true
		}
	}
	return false
}
