package render

import (
	"math"

	"github.com/stridelab/stridelab/viz"
)

// The drawing rules every renderer shares, so that the SVG and the pixels
// tell the same story: where hatch lines lie, how long dashes are, how big
// an arrow head is and which font family a Font names.

// Hatch lines are the lines x+y = k·hatchPeriod (k any integer) in frame
// pixels, hatchWidth wide, clipped to the rect. They are anchored to the
// frame rather than to each rect, so hatched neighbours join into one
// pattern. 6 px apart along an axis is 4.2 px apart across the lines:
// dense enough to read in a 10 px cell, sparse enough to show the fill.
const (
	hatchPeriod = 6
	hatchWidth  = 1
)

// dash returns the lengths of the drawn and the skipped parts of a dashed
// stroke of width w: 4w on, 3w off, and never less than 4 px on and 3 px
// off, so that hairlines still read as dashed. Every dashed stroke starts
// with a drawn part at its start point (a rect's at its top left corner,
// going clockwise), as SVG's stroke-dasharray does.
func dash(w float64) (on, off float64) {
	s := max(w, 1)
	return 4 * s, 3 * s
}

// maxDashes bounds the dashes made for one path: more than a 64k-pixel
// line holds at the finest pattern, so only nonsense geometry reaches it.
const maxDashes = 1 << 14

// dashes calls fn for each drawn part [t0, t1] of a dashed stroke of width
// w along a path of the given length, starting phase into the pattern,
// that reaches into the window [lo, hi] (the part of the path that can
// show; parts wholly outside it are not made). It returns the phase at
// the end of the path, so that a path made of several sides keeps one
// pattern.
func dashes(length, w, phase, lo, hi float64, fn func(t0, t1 float64)) float64 {
	on, off := dash(w)
	period := on + off
	phase = math.Mod(phase, period)
	lo, hi = max(lo, 0), min(hi, length)
	// From the first period that can reach lo, counting periods so that
	// the loop ends even where t is too large to move by one period.
	t := -phase + math.Floor((lo+phase)/period)*period
	for k := range int(min(max(math.Ceil((hi-t)/period), 0), maxDashes)) {
		t0, t1 := t+float64(k)*period, t+float64(k)*period+on
		if t0, t1 = max(t0, 0), min(t1, length); t1 > t0 && t1 >= lo {
			fn(t0, t1)
		}
	}
	return math.Mod(phase+length, period)
}

// pt is a point in frame pixels.
type pt struct{ x, y float64 }

// arrow splits a line with an arrow head into the shaft, from the start
// to the base of the head, and the head, a filled triangle whose tip is
// the line's end point. The head is max(8, 4·Width) long and 0.9 times
// that wide, and never longer than the line. ok is false where
// lineLength's is.
func arrow(l viz.Line) (base pt, head [3]pt, ok bool) {
	dx, dy := l.X2-l.X1, l.Y2-l.Y1
	n, ok := lineLength(l)
	if !ok {
		return pt{}, head, false
	}
	ux, uy := dx/n, dy/n
	length := min(max(8, 4*l.Width), n)
	half := 0.45 * length
	base = pt{l.X2 - ux*length, l.Y2 - uy*length}
	head = [3]pt{
		{l.X2, l.Y2},
		{base.x - uy*half, base.y + ux*half},
		{base.x + uy*half, base.y - ux*half},
	}
	return base, head, true
}

// knownFont is f, or FontRegular for a Font viz does not define, which
// every renderer sets as Go Regular.
func knownFont(f viz.Font) viz.Font {
	switch f {
	case viz.FontRegular, viz.FontBold, viz.FontMono:
		return f
	}
	return viz.FontRegular
}

// lineLength is the length of l, and whether it has a direction every
// renderer can draw: not zero, and not so long that it overflows.
func lineLength(l viz.Line) (float64, bool) {
	n := math.Hypot(l.X2-l.X1, l.Y2-l.Y1)
	return n, n > 0 && !math.IsInf(n, 0)
}

// fontFamily is the CSS font family and weight of f.
func fontFamily(f viz.Font) (family, weight string) {
	switch f {
	case viz.FontBold:
		return "Go, sans-serif", "bold"
	case viz.FontMono:
		return "Go Mono, monospace", ""
	}
	return "Go, sans-serif", ""
}

// AnchorShift is how much of a text's width lies left of its X.
func AnchorShift(a viz.Anchor) float64 {
	switch a {
	case viz.AnchorMiddle:
		return 0.5
	case viz.AnchorEnd:
		return 1
	}
	return 0
}

// finite reports whether no v is NaN or infinite.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// The same rules for renderers outside this package (the live window in
// app/live), so that every picture of a frame dashes, hatches and points
// arrows alike.

// HatchPeriod is the distance along an axis between two hatch lines
// x+y = k·HatchPeriod; they are HatchWidth wide.
const (
	HatchPeriod = hatchPeriod
	HatchWidth  = hatchWidth
)

// Dashes calls fn for each drawn part [t0, t1] of a dashed stroke of
// width w along a path of the given length, starting phase into the
// pattern, and returns the phase at the path's end (pass it to the next
// side of a rect to keep one pattern).
func Dashes(length, w, phase float64, fn func(t0, t1 float64)) float64 {
	return dashes(length, w, phase, 0, length, fn)
}

// ArrowHead splits a line with an arrow into its shaft's end (bx, by)
// and the head's triangle, tip first; ok is false for a line of no
// direction.
func ArrowHead(l viz.Line) (bx, by float64, head [3][2]float64, ok bool) {
	base, h, ok := arrow(l)
	for i, p := range h {
		head[i] = [2]float64{p.x, p.y}
	}
	return base.x, base.y, head, ok
}
