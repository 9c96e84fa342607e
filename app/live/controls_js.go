package live

import "github.com/hajimehoshi/ebiten/v2"

// In the browser the playground's page has the fields, the results and
// the transport in HTML (accessible, and the frame's wasm leaves out the
// widget library and its text shaping), so the frame's controls are none:
// the page drives the session through the frame's API.
type controls struct{}

// embedBarH: no transport bar is drawn in the frame.
const embedBarH = 0

func (a *App) buildControls(float64)       { a.ctl = &controls{} }
func (a *App) syncControls()               {}
func (*controls) update()                  {}
func (*controls) draw(*ebiten.Image, bool) {}
func (*controls) typing() bool             { return false }
func (*controls) resetScroll()             {}
func (*controls) release()                 {}
func (*controls) focusField(string)        {}
func (*controls) showText(string, string)  {}
