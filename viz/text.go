package viz

import (
	"strings"
	"unicode"
)

// MinText is the smallest text a scene draws, in scene pixels: 11 px,
// the least a learner reads on a phone without zooming. Frames are laid
// out at their viewport's CSS size and drawn at a scale of at least 1
// (FitViewport), so no scene text is smaller than 11 CSS px on screen.
// Text that does not fit its room at MinText is wrapped, cut short with
// an ellipsis, or left out (a cell's label; the cell still says it by
// its colour and its hot region's words), never drawn smaller.
const MinText = 11.0

// header writes a scene's title across the frame and its notes below it,
// wrapped within noteW, and returns the baseline of the last line.
func (c *canvas) header(title string, notes []string, noteW float64) float64 {
	W := float64(c.frame.W)
	y := margin
	size := fitText(title, FontBold, titleSize, W-2*margin)
	if size < 18 { // a narrow frame: wrap the title rather than shrink it further
		size = 18
	}
	for i, line := range wrapText(title, FontBold, size, W-2*margin) {
		if i > 0 {
			y += 4
		}
		y += size
		line, ls := fitLabel(line, FontBold, size, W-2*margin)
		c.text(margin, y, line, ls, Ink, FontBold, AnchorStart)
	}
	c.titleBottom = y
	y += 8
	for _, n := range notes {
		for _, line := range wrapText(n, FontRegular, noteSize, noteW) {
			y += noteSize + 6
			line, ls := fitLabel(line, FontRegular, noteSize, noteW)
			c.text(margin, y, line, ls, Muted, FontRegular, AnchorStart)
		}
	}
	return y
}

// panel writes a panel's lines down from (x, y), each within w (cut
// short where it does not fit at MinText); an empty line is a gap.
func (c *canvas) panel(x, y, w float64, lines []panelLine) {
	for _, l := range lines {
		y += l.size + 8
		if l.s == "" {
			continue
		}
		t, size := fitLabel(l.s, l.font, l.size, w)
		c.text(x, y, t, size, l.col, l.font, AnchorStart)
	}
}

// noBreak is the no-break space: wrapText does not break a line there.
const noBreak = '\u00a0'

// unbroken is s with its spaces no-break ones: a number and its unit
// ("13.1 µs") that a wrapped line keeps together.
func unbroken(s string) string { return strings.ReplaceAll(s, " ", string(noBreak)) }

// fitText shrinks size until s fits width, down to MinText (where it may
// still be wider: fitLabel cuts it).
func fitText(s string, f Font, size, width float64) float64 {
	for size > MinText && TextWidth(s, f, size) > width {
		size = max(MinText, size-0.5)
	}
	return size
}

// fitLabel is fitText, and where s does not fit even at MinText, s cut
// short with an ellipsis until it does.
func fitLabel(s string, f Font, size, width float64) (string, float64) {
	size = fitText(s, f, size, width)
	r := []rune(s)
	for len(r) > 1 && TextWidth(string(r), f, size) > width {
		r = append(r[:len(r)-2], '…')
	}
	return string(r), size
}

// cellText is the label of a cell of width w (a grid cell, a storage
// cell) at size up to size, and whether it is drawn: a label that does
// not fit at MinText is left out.
func cellText(s string, f Font, size, w float64) (float64, bool) {
	if s == "" {
		return 0, false
	}
	fs := fitText(s, f, max(MinText, size), w)
	return fs, TextWidth(s, f, fs) <= w
}

// gridText is the size the labels of a grid's cells (each w wide) are
// drawn at, up to size: one size for all, so the grid reads evenly, and
// none drawn (false) when one of them does not fit at MinText.
func gridText(labels []string, size, w float64) (float64, bool) {
	fs := max(MinText, size)
	for _, l := range labels {
		s, ok := cellText(l, FontMono, fs, w)
		if !ok && l != "" {
			return 0, false
		}
		if ok {
			fs = min(fs, s)
		}
	}
	return fs, true
}

// wrapText breaks s at spaces into lines no wider than w (a single word
// wider than w is a line of its own). A no-break space (U+00A0, see
// unbroken) joins what it stands between into one word, and so does a
// space between a number and its unit ("3.00 µs", "450 GB/s") or after
// a symbol that names a value ("α 3.00 µs"): a line never ends on a bare
// number whose unit starts the next.
func wrapText(s string, f Font, size, w float64) []string {
	var out []string
	line := ""
	var words []string
	for _, word := range strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != noBreak }) {
		if n := len(words); n > 0 && (isUnit(word) && endsInDigit(words[n-1]) || leads[words[n-1]]) {
			words[n-1] += " " + word // one word: a number with its unit, or a symbol with its value
			continue
		}
		words = append(words, word)
	}
	for _, word := range words {
		try := strings.TrimSpace(line + " " + word)
		if line != "" && TextWidth(try, f, size) > w {
			out = append(out, line)
			line = word
			continue
		}
		line = try
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// units are the units stridelab writes after a number (tensor.FormatBytes,
// cluster's formatters), with the punctuation that may follow them.
var units = map[string]bool{"B": true, "KiB": true, "MiB": true, "GiB": true, "TiB": true,
	"ps": true, "ns": true, "µs": true, "ms": true, "s": true,
	"B/s": true, "kB/s": true, "MB/s": true, "GB/s": true, "TB/s": true,
	"FLOP": true, "kFLOP": true, "MFLOP": true, "GFLOP": true, "TFLOP": true,
	"FLOP/s": true, "kFLOP/s": true, "MFLOP/s": true, "GFLOP/s": true, "TFLOP/s": true}

// leads are the symbols stridelab writes before a value.
var leads = map[string]bool{"α": true, "β": true, "Σ": true, "≈": true}

// isUnit reports whether word is a unit, maybe followed by ,;:.) .
func isUnit(word string) bool { return units[strings.TrimRight(word, ",;:.)")] }

// endsInDigit reports whether word ends in a digit.
func endsInDigit(word string) bool {
	return word != "" && word[len(word)-1] >= '0' && word[len(word)-1] <= '9'
}

// plural is the ending of a noun counted n times: "s", or "" for one.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
