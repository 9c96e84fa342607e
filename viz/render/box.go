package render

import "math"

// The fast path for axis-aligned boxes: rect fills and outlines, hatch
// lines and lines along an axis. A box's coverage of a pixel is exact and
// factors into a column part and a row part, so whole pixels are filled
// as spans and only the fractional edges are blended.

// box is the axis-aligned box [x0, x1]×[y0, y1] in frame pixels.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) empty() bool { return !(b.x1 > b.x0 && b.y1 > b.y0) }

// limit keeps coordinates where conversions to int are exact; nothing
// beyond it is on any frame.
const limit = 1 << 24

func (b box) clamp() box {
	c := func(v float64) float64 { return min(max(v, -limit), limit) }
	return box{c(b.x0), c(b.y0), c(b.x1), c(b.y1)}
}

// overlap is the length of [i, i+1] ∩ [a, b].
func overlap(i int, a, b float64) float64 {
	return max(0, min(float64(i+1), b)-max(float64(i), a))
}

// pixels returns the columns [x0, x1) and rows [y0, y1) of the painter
// that b touches.
func (p *painter) pixels(b box) (x0, y0, x1, y1 int) {
	return max(int(math.Floor(b.x0)), 0), max(int(math.Floor(b.y0)), p.y0),
		min(int(math.Ceil(b.x1)), p.w), min(int(math.Ceil(b.y1)), p.y1)
}

// ring paints o less in (in must lie inside o; an empty in paints all of
// o) by exact area coverage:
//
//	cover(x, y) = overlap(x, o.x0, o.x1)·overlap(y, o.y0, o.y1)
//	            − overlap(x, in.x0, in.x1)·overlap(y, in.y0, in.y1)
//
// In a row that misses in, the columns wholly inside o share one
// coverage; in a row that crosses in, so do the columns wholly inside in.
// Those are painted as a span, the edge columns either side through
// overRow. Rows wholly inside o, and either missing in or wholly inside
// it, have the same edges, so those are worked out once per ring.
func (p *painter) ring(o, in box, k *ink) {
	if o.empty() || k.c.A == 0 {
		return
	}
	o = o.clamp()
	cx0, ry0, cx1, ry1 := p.pixels(o)
	if cx1 <= cx0 || ry1 <= ry0 {
		return
	}
	hasIn := !in.empty()
	if hasIn {
		in = in.clamp()
	} else {
		in = box{}
	}
	cols := func(a, b float64) (int, int) {
		m0, m1 := min(max(int(math.Ceil(a)), cx0), cx1), min(max(int(math.Floor(b)), cx0), cx1)
		return m0, max(m0, m1)
	}
	// Rows that miss in span [mo0, mo1), rows that cross it [mi0, mi1).
	mo0, mo1 := cols(o.x0, o.x1)
	mi0, mi1 := mo0, mo1
	if hasIn {
		mi0, mi1 = cols(in.x0, in.x1)
	}
	// edges appends the coverages of columns [x0, x1) in a row whose
	// overlaps with o and in are oy and iy.
	edges := func(dst []uint8, x0, x1 int, oy, iy float64) []uint8 {
		for x := x0; x < x1; x++ {
			dst = append(dst, coverage(overlap(x, o.x0, o.x1)*oy-overlap(x, in.x0, in.x1)*iy))
		}
		return dst
	}
	// Rows wholly inside o are whole rows when they miss in (class 0) or
	// lie wholly inside it (class 1): their coverages are the same row
	// after row, worked out once. Other rows are partial.
	oFull0, oFull1 := int(math.Ceil(o.y0)), int(math.Floor(o.y1))
	inTouch0, inTouch1, inFull0, inFull1 := 0, 0, 0, 0
	if hasIn {
		inTouch0, inTouch1 = int(math.Floor(in.y0)), int(math.Ceil(in.y1))
		inFull0, inFull1 = int(math.Ceil(in.y0)), int(math.Floor(in.y1))
	}
	var whole [2]struct {
		done bool
		l, r []uint8
	}
	scratch := p.cover[:0]
	for y := ry0; y < ry1; y++ {
		class := -1
		if y >= oFull0 && y < oFull1 {
			switch {
			case y < inTouch0 || y >= inTouch1:
				class = 0
			case y >= inFull0 && y < inFull1:
				class = 1
			}
		}
		var l, r []uint8
		var m0, m1 int
		var mid uint8
		if class >= 0 {
			m0, m1, mid = mo0, mo1, 255
			if class == 1 {
				m0, m1, mid = mi0, mi1, 0
			}
			w := &whole[class]
			if !w.done {
				n := len(scratch)
				scratch = edges(scratch, cx0, m0, 1, float64(class))
				w.l = scratch[n:len(scratch):len(scratch)]
				scratch = edges(scratch, m1, cx1, 1, float64(class))
				w.r = scratch[n+len(w.l) : len(scratch) : len(scratch)]
				w.done = true
			}
			l, r = w.l, w.r
		} else {
			oy := overlap(y, o.y0, o.y1)
			iy := 0.0
			m0, m1 = mo0, mo1
			if hasIn {
				if iy = overlap(y, in.y0, in.y1); iy > 0 {
					m0, m1 = mi0, mi1
				}
			}
			n := len(scratch)
			scratch = edges(scratch, cx0, m0, oy, iy)
			l = scratch[n:len(scratch):len(scratch)]
			scratch = edges(scratch, m1, cx1, oy, iy)
			r = scratch[n+len(l) : len(scratch) : len(scratch)]
			mid = coverage(oy - iy)
		}
		// The edges are a pixel or two: blended here, not by a call.
		row := p.pix[y*p.stride:]
		for i, a := range l {
			if a != 0 {
				k.over(row[4*(cx0+i):], a)
			}
		}
		p.span(y, m0, m1, k, mid)
		for i, a := range r {
			if a != 0 {
				k.over(row[4*(m1+i):], a)
			}
		}
	}
	p.cover = scratch
}

// hatchCover is the coverage of a pixel whose centre's x+y lies d (mod
// hatchPeriod) from a hatch line's: a 1 px line at 45° is drawn as its
// own pixels painted whole, so they are exactly the Stroke colour, and a
// quarter of each diagonal neighbour, the area the line cuts from it.
var hatchCover = [hatchPeriod]float64{0: 1, 1: 0.25, hatchPeriod - 1: 0.25}

// hatch paints the hatch lines inside b.
func (p *painter) hatch(b box, k *ink) {
	if b.empty() || k.c.A == 0 {
		return
	}
	b = b.clamp()
	cx0, ry0, cx1, ry1 := p.pixels(b)
	for y := ry0; y < ry1; y++ {
		by := overlap(y, b.y0, b.y1)
		row := p.pix[y*p.stride:]
		for x := cx0; x < cx1; x++ {
			d := (x + y + 1) % hatchPeriod
			if hatchCover[d] == 0 {
				continue
			}
			if ma := coverage(hatchCover[d] * overlap(x, b.x0, b.x1) * by); ma > 0 {
				k.over(row[4*x:], ma)
			}
		}
	}
}
