package render

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stridelab/stridelab/viz"
)

// SVG writes f as an SVG 1.1 document W×H pixels large (its viewBox too),
// one element a line:
//
//   - the background is a rect over the whole frame;
//   - a Rect is a <rect> with fill and stroke (fill-opacity and
//     stroke-opacity for translucent colours, stroke-dasharray when Dash);
//     a hatched one is its fill, then a rect filled with the hatch
//     <pattern> of its Stroke colour (one per colour, in <defs>), then its
//     outline;
//   - a Line is a <line>, ending at the base of the head when Arrow, and
//     the head a <polygon>;
//   - a Text is a <text> at its baseline with font-size, fill,
//     text-anchor (start, middle or end), font-family "Go, sans-serif" or
//     "Go Mono, monospace" and font-weight bold for viz.FontBold, its
//     characters XML-escaped.
//
// Consecutive elements with the same presentation attributes share them
// in a <g>. Numbers have at most two decimals. Hatch spacing, dash lengths
// and arrow heads follow the same rules as Raster (style.go), and the same
// items are skipped. The same frame gives the same bytes. SVG refuses a
// frame of no pixels (ErrSize) and a coordinate, size or width that is NaN
// or infinite (ErrNumber), naming the item.
func SVG(w io.Writer, f viz.Frame) error { return SVGSized(w, f, f.W, f.H) }

// SVGSized is SVG with the document cssW×cssH pixels large and f's
// W×H as its viewBox: the frame drawn cssW/W times as large (a frame laid
// out by viz.FitViewport, shown at its scale).
func SVGSized(w io.Writer, f viz.Frame, cssW, cssH int) error {
	if err := checkSize("svg", f.W, f.H); err != nil {
		return err
	}
	if err := checkSize("svg", cssW, cssH); err != nil {
		return err
	}
	for i, it := range f.Items {
		if err := checkFinite(i, itemValue(it)); err != nil {
			return err
		}
	}
	s := svgWriter{hatches: map[viz.Color]int{}}
	b := &s.buf
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="`)
	b.WriteString(strconv.Itoa(cssW))
	b.WriteString(`" height="`)
	b.WriteString(strconv.Itoa(cssH))
	b.WriteString(`" viewBox="0 0 `)
	b.WriteString(strconv.Itoa(f.W) + " " + strconv.Itoa(f.H))
	b.WriteString("\">\n")
	s.defs(f.Items)
	if f.Background.Visible() {
		s.add("rect", `width="`+strconv.Itoa(f.W)+`" height="`+strconv.Itoa(f.H)+`"`, fillAttrs(f.Background), "")
	}
	for _, it := range f.Items {
		switch it := itemValue(it).(type) {
		case viz.Rect:
			s.rect(it)
		case viz.Line:
			s.line(it)
		case viz.Text:
			s.text(it)
		}
	}
	s.flush()
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// itemValue returns the Rect, Line or Text it holds or points to, or nil.
func itemValue(it viz.Item) viz.Item {
	switch v := it.(type) {
	case *viz.Rect:
		if v != nil {
			return *v
		}
	case *viz.Line:
		if v != nil {
			return *v
		}
	case *viz.Text:
		if v != nil {
			return *v
		}
	case viz.Rect, viz.Line, viz.Text:
		return v
	}
	return nil
}

func checkFinite(i int, it viz.Item) error {
	var names []string
	var vals []float64
	kind := ""
	switch it := it.(type) {
	case viz.Rect:
		kind, names, vals = "Rect", []string{"X", "Y", "W", "H", "StrokeWidth"}, []float64{it.X, it.Y, it.W, it.H, it.StrokeWidth}
	case viz.Line:
		kind, names, vals = "Line", []string{"X1", "Y1", "X2", "Y2", "Width"}, []float64{it.X1, it.Y1, it.X2, it.Y2, it.Width}
	case viz.Text:
		kind, names, vals = "Text", []string{"X", "Y", "Size"}, []float64{it.X, it.Y, it.Size}
	}
	for j, v := range vals {
		if !finite(v) {
			return newError(ErrNumber, "svg", "item %d (a %s) has %s = %v", i, kind, names[j], v)
		}
	}
	return nil
}

// svgWriter collects elements, grouping runs that share their style.
type svgWriter struct {
	buf     bytes.Buffer
	hatches map[viz.Color]int // hatch colour → pattern number
	run     []svgElem         // consecutive elements of one style
}

// svgElem is <name geom style>body</name>, or self-closed without body.
type svgElem struct{ name, geom, style, body string }

func (s *svgWriter) add(name, geom, style, body string) {
	if len(s.run) > 0 && s.run[0].style != style {
		s.flush()
	}
	s.run = append(s.run, svgElem{name, geom, style, body})
}

func (s *svgWriter) flush() {
	b := &s.buf
	if len(s.run) > 1 {
		b.WriteString("<g " + s.run[0].style + ">\n")
	}
	for _, e := range s.run {
		b.WriteString("<" + e.name + " " + e.geom)
		if len(s.run) == 1 && e.style != "" {
			b.WriteString(" " + e.style)
		}
		if e.body == "" {
			b.WriteString("/>\n")
			continue
		}
		b.WriteString(">" + e.body + "</" + e.name + ">\n")
	}
	if len(s.run) > 1 {
		b.WriteString("</g>\n")
	}
	s.run = s.run[:0]
}

// defs writes one hatch pattern per colour that hatches a rect, numbered
// in the order the colours first appear.
func (s *svgWriter) defs(items []viz.Item) {
	var colours []viz.Color
	for _, it := range items {
		r, ok := itemValue(it).(viz.Rect)
		if !ok || !r.Hatch || !r.Stroke.Visible() || !(r.W > 0 && r.H > 0) {
			continue
		}
		if _, ok := s.hatches[r.Stroke]; !ok {
			s.hatches[r.Stroke] = len(colours)
			colours = append(colours, r.Stroke)
		}
	}
	if len(colours) == 0 {
		return
	}
	p := strconv.Itoa(hatchPeriod)
	b := &s.buf
	b.WriteString("<defs>\n")
	for i, c := range colours {
		// The line x+y = p across the tile, and the tile's corners of the
		// lines x+y = 0 and x+y = 2p, which the butt ends would leave bare.
		b.WriteString(`<pattern id="hatch` + strconv.Itoa(i) + `" width="` + p + `" height="` + p +
			`" patternUnits="userSpaceOnUse"><path d="M0,` + p + `L` + p + `,0M-1,1L1,-1M` +
			strconv.Itoa(hatchPeriod-1) + "," + strconv.Itoa(hatchPeriod+1) + "L" +
			strconv.Itoa(hatchPeriod+1) + "," + strconv.Itoa(hatchPeriod-1) + `" ` +
			strokeAttrs(c, hatchWidth, false) + "/></pattern>\n")
	}
	b.WriteString("</defs>\n")
}

func (s *svgWriter) rect(r viz.Rect) {
	if !(r.W > 0 && r.H > 0) {
		return
	}
	geom := `x="` + num(r.X) + `" y="` + num(r.Y) + `" width="` + num(r.W) + `" height="` + num(r.H) + `"`
	outline := r.Stroke.Visible() && r.StrokeWidth > 0
	if !(r.Hatch && r.Stroke.Visible()) {
		if !r.Fill.Visible() && !outline {
			return
		}
		style := `fill="none"`
		if r.Fill.Visible() {
			style = fillAttrs(r.Fill)
		}
		if outline {
			style += " " + strokeAttrs(r.Stroke, r.StrokeWidth, r.Dash)
		}
		s.add("rect", geom, style, "")
		return
	}
	if r.Fill.Visible() {
		s.add("rect", geom, fillAttrs(r.Fill), "")
	}
	s.add("rect", geom, `fill="url(#hatch`+strconv.Itoa(s.hatches[r.Stroke])+`)"`, "")
	if outline {
		s.add("rect", geom, `fill="none" `+strokeAttrs(r.Stroke, r.StrokeWidth, r.Dash), "")
	}
}

func (s *svgWriter) line(l viz.Line) {
	if _, ok := lineLength(l); !ok || !(l.Width > 0) || !l.Color.Visible() {
		return
	}
	end := pt{l.X2, l.Y2}
	var head [3]pt
	if l.Arrow {
		end, head, _ = arrow(l)
	}
	if end.x != l.X1 || end.y != l.Y1 {
		s.add("line", `x1="`+num(l.X1)+`" y1="`+num(l.Y1)+`" x2="`+num(end.x)+`" y2="`+num(end.y)+`"`,
			strokeAttrs(l.Color, l.Width, l.Dash), "")
	}
	if l.Arrow {
		s.add("polygon", `points="`+num(head[0].x)+","+num(head[0].y)+" "+num(head[1].x)+","+num(head[1].y)+
			" "+num(head[2].x)+","+num(head[2].y)+`"`, fillAttrs(l.Color), "")
	}
}

func (s *svgWriter) text(t viz.Text) {
	if !drawsText(t) {
		return
	}
	geom := `x="` + num(t.X) + `" y="` + num(t.Y) + `"`
	if needsPreserve(t.S) {
		geom += ` xml:space="preserve"`
	}
	family, weight := fontFamily(t.Font)
	style := `font-family="` + family + `" font-size="` + num(t.Size) + `"`
	if weight != "" {
		style += ` font-weight="` + weight + `"`
	}
	style += " " + fillAttrs(t.Color)
	switch t.Anchor {
	case viz.AnchorMiddle:
		style += ` text-anchor="middle"`
	case viz.AnchorEnd:
		style += ` text-anchor="end"`
	}
	s.add("text", geom, style, escapeText(t.S))
}

// escapeText is s as the text of an SVG element, to the byte what
// encoding/xml's EscapeText writes (TestEscapeText holds them together):
// & < > " ' and tab, newline and carriage return as references, and what
// XML cannot hold (a control character, U+FFFE, U+FFFF, a byte that is
// not UTF-8) as U+FFFD. Its own few lines keep encoding/xml out of the
// playground's wasm.
func escapeText(s string) string {
	var b strings.Builder
	for _, r := range s { // a byte that is not UTF-8 ranges as U+FFFD
		switch r {
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\t':
			b.WriteString("&#x9;")
		case '\n':
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			if r < 0x20 || r == 0xFFFE || r == 0xFFFF {
				r = utf8.RuneError
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsPreserve reports whether s has spaces that SVG's default
// whitespace handling would drop: leading, trailing or doubled ones.
func needsPreserve(s string) bool {
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] == ' ' {
			return true
		}
	}
	return false
}

func fillAttrs(c viz.Color) string {
	a := `fill="` + hex(c) + `"`
	if c.A < 255 {
		a += ` fill-opacity="` + opacity(c.A) + `"`
	}
	return a
}

func strokeAttrs(c viz.Color, width float64, dashed bool) string {
	a := `stroke="` + hex(c) + `" stroke-width="` + num(width) + `"`
	if c.A < 255 {
		a += ` stroke-opacity="` + opacity(c.A) + `"`
	}
	if dashed {
		on, off := dash(width)
		a += ` stroke-dasharray="` + num(on) + " " + num(off) + `"`
	}
	return a
}

func hex(c viz.Color) string {
	const digits = "0123456789abcdef"
	return string([]byte{'#', digits[c.R>>4], digits[c.R&15], digits[c.G>>4], digits[c.G&15], digits[c.B>>4], digits[c.B&15]})
}

// opacity is a/255 with two decimals, and never 0 for a visible colour.
func opacity(a uint8) string {
	if s := num(float64(a) / 255); s != "0" {
		return s
	}
	return "0.01"
}

// num formats v with at most two decimals, trailing zeros and a trailing
// point trimmed, and without a minus sign on zero: 1.5, 2, 0.33, -4.25.
func num(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
