//go:build !js

package live

import (
	"image"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/stridelab/stridelab/viz"
)

// resultsPanel shows the results text (the scene's report and the values
// computed) in the sidebar: a display list of monospaced lines, wrapped
// to the panel, painted like a scene (so only what changed is repainted)
// and scrolled by the wheel.
type resultsPanel struct {
	secs   []viz.Section
	text   string // the sections as text, to tell when they change
	scroll int    // the first line shown
	rect   image.Rectangle
	canvas sceneCanvas
	frame  viz.Frame
	built  struct {
		text   string
		scroll int
		w, h   int
	}
}

const (
	resultsPx    = 12.5 // text size, in logical pixels
	resultsLineH = 16.0
)

func (p *resultsPanel) set(secs []viz.Section) {
	if text := (viz.Report{Sections: secs}).String(); text != p.text {
		p.secs, p.text = secs, text
	}
}

func (p *resultsPanel) scrollBy(lines float64) { p.scroll = max(0, p.scroll+int(lines)) }

// draw paints the panel into r of the screen (device pixels) if it
// changed, or always when full.
func (p *resultsPanel) draw(screen *ebiten.Image, r image.Rectangle, scale float64, full bool) {
	if r.Dx() <= 0 || r.Dy() <= 0 {
		return
	}
	p.rect = r
	w, h := int(float64(r.Dx())/scale), int(float64(r.Dy())/scale)
	if p.built.text != p.text || p.built.scroll != p.scroll || p.built.w != w || p.built.h != h {
		p.frame = p.layout(w, h)
		p.built.text, p.built.scroll, p.built.w, p.built.h = p.text, p.scroll, w, h
	}
	if full {
		p.canvas.invalidate()
	}
	p.canvas.show(screen.SubImage(r).(*ebiten.Image), p.frame, Transform{OffX: float64(r.Min.X), OffY: float64(r.Min.Y), Scale: scale})
}

// line is one line of the panel; a title is drawn in colour.
type line struct {
	s     string
	title bool
}

// layout lays the sections out from the scroll position at w×h logical
// pixels: titles and lines wrap to the width, table rows are clipped
// (a wrapped row no longer reads as a row); a bar shows where the lines
// shown sit among all of them.
func (p *resultsPanel) layout(w, h int) viz.Frame {
	f := viz.Frame{W: w, H: h, Background: viz.Paper}
	charW := viz.TextWidth("0", viz.FontMono, resultsPx)
	cols := max(8, int((float64(w)-8-14)/charW)) // from x = 8 to the scroll bar
	var lines []line
	// wrap breaks l at spaces (mid-word only where a word is longer than
	// a line), continuing indented under its start.
	wrap := func(l string, title bool) {
		r := []rune(l)
		indent := []rune(strings.Repeat(" ", len(r)-len([]rune(strings.TrimLeft(l, " ")))+2))
		for len(r) > cols {
			cut := cols
			for i := cols; i > len(indent); i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			lines = append(lines, line{string(r[:cut]), title})
			r = append(append([]rune{}, indent...), []rune(strings.TrimLeft(string(r[cut:]), " "))...)
		}
		lines = append(lines, line{string(r), title})
	}
	for i, sec := range p.secs {
		if i > 0 {
			lines = append(lines, line{})
		}
		text := strings.Split(strings.TrimRight(sec.String(), "\n"), "\n")
		for j, l := range text {
			switch {
			case j == 0:
				wrap(l, true)
			case j <= len(sec.Lines):
				wrap(l, false)
			default:
				lines = append(lines, line{l, false}) // a table row
			}
		}
	}
	rows := max(1, int((float64(h)-8)/resultsLineH))
	p.scroll = min(p.scroll, max(0, len(lines)-rows))
	for i := p.scroll; i < len(lines) && i-p.scroll < rows; i++ {
		col := viz.Ink
		if lines[i].title {
			col = viz.Broadcast
		}
		f.Items = append(f.Items, viz.Text{X: 8, Y: 4 + resultsLineH*float64(i-p.scroll+1) - 3, S: lines[i].s, Size: resultsPx, Color: col, Font: viz.FontMono})
	}
	f.Items = append(f.Items, viz.Rect{X: float64(w) - 12, Y: 0, W: 12, H: float64(h), Fill: viz.Paper}) // clips rows under the bar
	if len(lines) > rows {
		trackH := float64(h) - 8
		f.Items = append(f.Items, viz.Rect{X: float64(w) - 8, Y: 4 + trackH*float64(p.scroll)/float64(len(lines)), W: 4,
			H: max(12, trackH*float64(rows)/float64(len(lines))), Fill: viz.Muted})
	}
	f.Items = append(f.Items, viz.Rect{X: 0.5, Y: 0.5, W: float64(w) - 1, H: float64(h) - 1, Stroke: viz.Faint, StrokeWidth: 1})
	return f
}
