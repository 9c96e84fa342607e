//go:build !js

package live

import (
	"fmt"
	"image"
	"sort"
	"strings"
	"time"

	"github.com/ebitenui/ebitenui"
	"github.com/ebitenui/ebitenui/widget"
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/lessons"
	"github.com/stridelab/stridelab/viz"
)

// controls are the window's widgets (github.com/ebitenui/ebitenui): the
// scene picker, one field per key of the scene with its error in place,
// the results, and the transport bar (play, step, scrub, speed, export,
// keys). They only forward to the session; the app reads the session
// back into them every tick.
type controls struct {
	ui     *ebitenui.UI
	th     *theme
	scenes map[string]*widget.Button
	fields *widget.Container
	inputs map[string]*widget.TextInput
	// shows lays a field's value out for its one-line input: a program
	// (a key with Rows) with "; " between its statements and without its
	// comments (viz.ProgramOneLine), any other value as it is.
	shows map[string]func(string) string
	errs  map[string]*widget.Text
	// parts are each field's widgets (its help, input and error line):
	// a field that does not apply beside the others (viz.Key.Applies: a
	// cost without a cluster) is hidden.
	parts  map[string][]widget.HasWidget
	errSig string // the error lines' labels when the fields were last laid out
	topErr *widget.Text
	result *widget.Container // the room the results panel is painted in
	panel  resultsPanel
	play   *widget.Button
	scrub  *widget.Slider
	where  *widget.Text
	status *widget.Text
	shown  string // the scene whose fields are built
	// sceneRect is the scene's viewport in screen pixels: the pointer
	// moving there does not change the widgets.
	sceneRect image.Rectangle
	// The widgets are drawn into layer, again only when they may look
	// different (input over them, a label changed, a caret blinking):
	// ebitenui redraws every widget and its text each frame, which costs
	// llvmpipe most of a frame.
	layer   *ebiten.Image
	dirty   bool
	drawnAt time.Time
	labels  string // what the labels said when last drawn
	cursorX int
	cursorY int
}

func (a *App) buildControls(scale float64) {
	th := newTheme(scale)
	px := func(v float64) int { return int(v*scale + 0.5) }
	c := &controls{th: th, scenes: map[string]*widget.Button{}, inputs: map[string]*widget.TextInput{}, errs: map[string]*widget.Text{}}
	inner := px(sidebarW - 24) // the sidebar less its padding
	rowData := widget.WidgetOpts.LayoutData(widget.RowLayoutData{Stretch: true, MaxWidth: inner})

	root := widget.NewContainer(widget.ContainerOpts.Layout(widget.NewAnchorLayout()))

	// The sidebar: scenes, fields, results.
	side := widget.NewContainer(
		widget.ContainerOpts.BackgroundImage(th.ui.PanelTheme.BackgroundImage),
		widget.ContainerOpts.Layout(widget.NewRowLayout(
			widget.RowLayoutOpts.Direction(widget.DirectionVertical),
			widget.RowLayoutOpts.Padding(widget.NewInsetsSimple(px(12))),
			widget.RowLayoutOpts.Spacing(px(6)))),
		widget.ContainerOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.AnchorLayoutData{
			StretchVertical: true, HorizontalPosition: widget.AnchorLayoutPositionStart}),
			widget.WidgetOpts.MinSize(px(sidebarW), 0)),
	)
	side.AddChild(widget.NewText(widget.TextOpts.Text("stridelab — scenes", &th.bold, nrgba(viz.Ink))))
	grid := widget.NewContainer(widget.ContainerOpts.Layout(widget.NewGridLayout(
		widget.GridLayoutOpts.Columns(4), widget.GridLayoutOpts.Spacing(px(4), px(4)),
		widget.GridLayoutOpts.DefaultStretch(true, false))),
		widget.ContainerOpts.WidgetOpts(rowData))
	for _, name := range viz.Scenes {
		b := widget.NewButton(
			widget.ButtonOpts.TextLabel(name),
			widget.ButtonOpts.TextFace(&th.small),
			widget.ButtonOpts.TextPadding(&widget.Insets{Left: px(2), Right: px(2), Top: px(4), Bottom: px(4)}),
			widget.ButtonOpts.ClickedHandler(func(*widget.ButtonClickedEventArgs) { a.pickScene(name) }),
		)
		c.scenes[name] = b
		grid.AddChild(b)
	}
	side.AddChild(grid)
	if ls, err := lessons.Builtin(); err == nil {
		menu := widget.NewContainer(widget.ContainerOpts.Layout(widget.NewGridLayout(
			widget.GridLayoutOpts.Columns(2), widget.GridLayoutOpts.Spacing(px(4), px(4)),
			widget.GridLayoutOpts.DefaultStretch(true, false))),
			widget.ContainerOpts.WidgetOpts(rowData))
		for _, l := range ls {
			menu.AddChild(widget.NewButton(
				widget.ButtonOpts.TextLabel(l.ID),
				widget.ButtonOpts.TextFace(&th.small),
				widget.ButtonOpts.TextPadding(&widget.Insets{Left: px(2), Right: px(2), Top: px(3), Bottom: px(3)}),
				widget.ButtonOpts.ClickedHandler(func(*widget.ButtonClickedEventArgs) {
					if err := a.OpenLesson(l.ID, 1); err != nil {
						a.status = err.Error()
					}
					c.resetScroll()
				}),
			))
		}
		side.AddChild(widget.NewText(widget.TextOpts.Text("lessons (n: next step, b: back)", &th.small, nrgba(viz.Muted))))
		side.AddChild(menu)
	}
	c.topErr = widget.NewText(widget.TextOpts.Text("", &th.small, nrgba(errorInk)), widget.TextOpts.MaxWidth(float64(px(sidebarW-24))))
	side.AddChild(c.topErr)
	c.fields = widget.NewContainer(widget.ContainerOpts.Layout(widget.NewRowLayout(
		widget.RowLayoutOpts.Direction(widget.DirectionVertical), widget.RowLayoutOpts.Spacing(px(3)))),
		widget.ContainerOpts.WidgetOpts(rowData))
	side.AddChild(c.fields)
	side.AddChild(widget.NewText(widget.TextOpts.Text("results", &th.bold, nrgba(viz.Ink))))
	c.result = widget.NewContainer(widget.ContainerOpts.WidgetOpts(
		widget.WidgetOpts.LayoutData(widget.RowLayoutData{Stretch: true, MaxWidth: inner}),
		widget.WidgetOpts.MinSize(inner, px(120))))
	side.AddChild(c.result)
	if !a.opt.Embed { // embedded, the page around the frame has the fields and the results
		root.AddChild(side)
	}

	// The transport bar under the scene.
	bar := widget.NewContainer(
		widget.ContainerOpts.BackgroundImage(th.ui.PanelTheme.BackgroundImage),
		widget.ContainerOpts.Layout(widget.NewRowLayout(
			widget.RowLayoutOpts.Padding(&widget.Insets{Left: px(float64(sceneRect(a.opt.Width, a.opt.Height, a.opt.Embed).Min.X) + 10), Right: px(10), Top: px(8), Bottom: px(8)}),
			widget.RowLayoutOpts.Spacing(px(6)))),
		widget.ContainerOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.AnchorLayoutData{
			StretchHorizontal: true, VerticalPosition: widget.AnchorLayoutPositionEnd}),
			widget.WidgetOpts.MinSize(0, px(barH))),
	)
	button := func(label string, act session.Action) *widget.Button {
		b := widget.NewButton(widget.ButtonOpts.TextLabel(label),
			widget.ButtonOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.RowLayoutData{Position: widget.RowLayoutPositionCenter})),
			widget.ButtonOpts.ClickedHandler(func(*widget.ButtonClickedEventArgs) { a.act(act) }))
		bar.AddChild(b)
		return b
	}
	button("|<", session.FirstStep)
	button("<", session.StepBack)
	c.play = button("play", session.PlayPause)
	button(">", session.StepForward)
	scrubW := 260.0
	if a.opt.Embed {
		scrubW = 200 // the frame is narrower than a window
	}
	c.scrub = widget.NewSlider(
		widget.SliderOpts.MinMax(0, 1),
		widget.SliderOpts.FixedHandleSize(px(12)),
		widget.SliderOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.RowLayoutData{Position: widget.RowLayoutPositionCenter}),
			widget.WidgetOpts.MinSize(px(scrubW), px(20))),
		widget.SliderOpts.ChangedHandler(func(e *widget.SliderChangedEventArgs) {
			if e.Current != a.s.Step() {
				a.s.Pause()
				a.s.Seek(e.Current)
			}
		}),
	)
	bar.AddChild(c.scrub)
	c.where = widget.NewText(widget.TextOpts.Text("", &th.small, nrgba(viz.Ink)),
		widget.TextOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.RowLayoutData{Position: widget.RowLayoutPositionCenter}),
			widget.WidgetOpts.MinSize(px(150), 0)))
	bar.AddChild(c.where)
	button("slower", session.Slower)
	button("faster", session.Faster)
	button("SVG", session.ExportSVG)
	button("PNG", session.ExportPNG)
	button("GIF", session.ExportGIF)
	button("?", session.Help)
	// A status line at the bar's end: what an export wrote.
	c.status = widget.NewText(widget.TextOpts.Text("", &th.small, nrgba(viz.Muted)),
		widget.TextOpts.MaxWidth(float64(px(260))),
		widget.TextOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.RowLayoutData{Position: widget.RowLayoutPositionCenter})))
	bar.AddChild(c.status)
	root.AddChild(bar)

	c.ui = &ebitenui.UI{Container: root, PrimaryTheme: th.ui}
	a.ctl = c
	c.shown = ""
}

// syncFields rebuilds the field list when the scene changed, and shows
// the session's error beside the field it is about.
func (a *App) syncControls() {
	c := a.ctl
	px := func(v float64) int { return int(v*c.th.scale + 0.5) }
	if c.shown != a.s.SceneName() {
		c.fields.RemoveChildren()
		c.inputs, c.errs, c.shows = map[string]*widget.TextInput{}, map[string]*widget.Text{}, map[string]func(string) string{}
		c.parts = map[string][]widget.HasWidget{}
		for _, k := range a.s.Keys() {
			help := widget.NewText(widget.TextOpts.Text("--"+k.Name+"   "+k.Help, &c.th.small, nrgba(viz.Muted)),
				widget.TextOpts.MaxWidth(float64(px(sidebarW-24))))
			c.fields.AddChild(help)
			show := func(v string) string { return v }
			if k.Rows > 0 {
				show = viz.ProgramOneLine
			}
			in := widget.NewTextInput(
				widget.TextInputOpts.WidgetOpts(widget.WidgetOpts.LayoutData(widget.RowLayoutData{Stretch: true, MaxWidth: px(sidebarW - 24)})),
				widget.TextInputOpts.ChangedHandler(func(e *widget.TextInputChangedEventArgs) {
					// A program shown as it is laid out has not changed: its
					// newlines and comments stay until it is typed over.
					if k.Rows == 0 || e.InputText != show(a.s.Field(k.Name)) {
						a.s.SetField(k.Name, e.InputText)
					}
				}),
			)
			c.shows[k.Name] = show
			in.SetText(show(a.s.Field(k.Name)))
			e := widget.NewText(widget.TextOpts.Text("", &c.th.small, nrgba(errorInk)), widget.TextOpts.MaxWidth(float64(px(sidebarW-24))))
			c.inputs[k.Name], c.errs[k.Name] = in, e
			c.parts[k.Name] = []widget.HasWidget{help, in, e}
			c.fields.AddChild(in, e)
		}
		c.shown = a.s.SceneName()
	}
	fields := map[string]string{}
	for _, k := range a.s.Keys() {
		fields[k.Name] = a.s.Field(k.Name)
	}
	for _, k := range a.s.Keys() {
		show := widget.Visibility_Show
		if !k.Applies(fields) {
			show = widget.Visibility_Hide
		}
		for _, w := range c.parts[k.Name] {
			if w.GetWidget().Visibility != show {
				w.GetWidget().Visibility = show
				c.ui.Container.RequestRelayout() // the sidebar under the fields moves too
				c.dirty = true
			}
		}
	}
	for name, in := range c.inputs { // a lesson or a link changed the fields
		if v := c.shows[name](a.s.Field(name)); in.GetText() != v && !in.IsFocused() {
			in.SetText(v)
		}
	}
	key, err := a.s.Err()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for name, t := range c.errs {
		if name == key {
			t.Label = msg
		} else {
			t.Label = ""
		}
	}
	if e := errLabels(c.errs); e != c.errSig { // an error line's height changed: the fields under it move
		c.errSig = e
		c.ui.Container.RequestRelayout() // the sidebar under the fields moves too
	}
	if _, ok := c.errs[key]; ok || err == nil {
		c.topErr.Label = ""
	} else {
		c.topErr.Label = msg
	}
	for name, b := range c.scenes {
		b.GetWidget().Disabled = name == a.s.SceneName() // the scene shown reads as chosen
	}
	c.play.Text().Label = map[bool]string{true: "pause", false: "play"}[a.s.Playing()]
	c.scrub.Min, c.scrub.Max = 0, max(a.s.Steps()-1, 1)
	c.scrub.Current = a.s.Step()
	c.where.Label = fmt.Sprintf("step %d / %d  ·  %.3g/s", a.s.Step()+1, a.s.Steps(), a.s.Speed())
	c.status.Label = a.status
	if sig := fmt.Sprint(c.where.Label, c.play.Text().Label, c.topErr.Label, c.status.Label, c.scrub.Current, c.scrub.Max, errLabels(c.errs)); sig != c.labels {
		c.labels, c.dirty = sig, true
	}
	c.sceneRect = scaleRect(sceneRect(a.opt.Width, a.opt.Height, a.opt.Embed), c.th.scale)
	c.panel.set(a.results())
}

func (c *controls) update() {
	c.ui.Update()
	x, y := ebiten.CursorPosition()
	moved := x != c.cursorX || y != c.cursorY
	c.cursorX, c.cursorY = x, y
	overScene := c.sceneRect.Inset(1).Intersect(image.Rect(x, y, x+1, y+1)) != image.Rectangle{}
	if (moved && !overScene) || len(ebiten.AppendInputChars(nil)) > 0 || len(inpututil.AppendJustPressedKeys(nil)) > 0 ||
		inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft) || inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft) {
		c.dirty = true
	}
	if _, wy := ebiten.Wheel(); wy != 0 && image.Pt(x, y).In(c.panel.rect) {
		c.panel.scrollBy(-wy * 3)
	}
}

// uiRefresh redraws the widgets at least this often while a field has
// the keyboard (its caret blinks) and otherwise now and then.
const (
	uiRefreshTyping = 100 * time.Millisecond
	uiRefreshIdle   = time.Second
)

// draw draws the widgets' layer over the screen when it changed (or
// when the screen is drawn whole), then the results panel.
func (c *controls) draw(screen *ebiten.Image, full bool) {
	b := screen.Bounds()
	if c.layer == nil || c.layer.Bounds() != b {
		if c.layer != nil {
			c.layer.Deallocate()
		}
		c.layer = ebiten.NewImage(b.Dx(), b.Dy())
		c.dirty = true
	}
	every := uiRefreshIdle
	if c.typing() {
		every = uiRefreshTyping
	}
	if c.dirty || time.Since(c.drawnAt) >= every {
		c.layer.Clear()
		c.ui.Draw(c.layer)
		c.dirty, c.drawnAt = false, time.Now()
		full = true
	}
	if full {
		screen.DrawImage(c.layer, nil)
	}
	r := c.result.GetWidget().Rect
	c.panel.draw(screen, image.Rect(r.Min.X, r.Min.Y, r.Max.X, b.Max.Y-int(12*c.th.scale)), c.th.scale, full)
}

// typing reports whether a text field has the keyboard.
func (c *controls) typing() bool {
	_, ok := c.ui.GetFocusedWidget().(*widget.TextInput)
	return ok
}

// resetScroll shows the results from their top (a new lesson step).
func (c *controls) resetScroll() { c.panel.scroll = 0 }

// release takes the keyboard from whichever field has it.
func (c *controls) release() { c.ui.ClearFocus() }

// focusField gives the field of key the keyboard.
func (c *controls) focusField(key string) {
	if in, ok := c.inputs[key]; ok {
		c.ui.SetFocusedWidget(in)
	}
}

// showText writes text into the field of key, as typing would.
func (c *controls) showText(key, text string) {
	if in, ok := c.inputs[key]; ok {
		in.SetText(text)
	}
}

// embedBarH: the desktop's embed mode keeps the transport bar.
const embedBarH = barH

func errLabels(errs map[string]*widget.Text) string {
	var b []string
	for k, t := range errs {
		b = append(b, k+"="+t.Label)
	}
	sort.Strings(b)
	return strings.Join(b, ";")
}
