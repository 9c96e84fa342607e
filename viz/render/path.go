package render

import (
	"image"
	"image/draw"
	"math"
)

// Shapes that are not axis-aligned boxes (slanted lines, dashes, arrow
// heads) go through golang.org/x/image/vector, whose cost grows with the
// area of the box it rasterises. So a shape is cut into the bands of
// bandRows rows that start at multiples of bandRows, each rasterised in
// its own tight box: a diagonal across a 1280×720 frame costs its length
// times bandRows instead of the whole frame. The bands are fixed to the
// frame, and painters' rows start at multiples of bandRows too, so a
// shape is cut the same way however many painters share the frame, and
// its pixels come out the same.
const bandRows = 16

// fill paints the union of polys (closed, non-zero winding) with k.
func (p *painter) fill(polys [][]pt, k *ink) {
	if len(polys) == 0 || k.c.A == 0 {
		return
	}
	lo, hi := pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
	p.bounds = p.bounds[:0]
	for _, q := range polys {
		b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for _, v := range q {
			b = box{min(b.x0, v.x), min(b.y0, v.y), max(b.x1, v.x), max(b.y1, v.y)}
		}
		p.bounds = append(p.bounds, b)
		lo.x, lo.y = min(lo.x, b.x0), min(lo.y, b.y0)
		hi.x, hi.y = max(hi.x, b.x1), max(hi.y, b.y1)
	}
	// Not image.Rect, which would swap the sides of an empty box.
	r := image.Rectangle{
		image.Pt(max(int(math.Floor(max(lo.x, -1))), 0), max(int(math.Floor(max(lo.y, -1))), p.y0)),
		image.Pt(min(int(math.Ceil(min(hi.x, float64(p.w+1)))), p.w), min(int(math.Ceil(min(hi.y, float64(p.y1+1)))), p.y1))}
	if r.Empty() {
		return
	}
	for y := r.Min.Y / bandRows * bandRows; y < r.Max.Y; y += bandRows {
		p.rasterize(polys, image.Rectangle{image.Pt(r.Min.X, y), image.Pt(r.Max.X, min(y+bandRows, p.y1))}, k)
	}
}

// rasterize paints the parts of polys inside clip, which lies within the
// painter's rows, through the vector rasterizer.
func (p *painter) rasterize(polys [][]pt, clip image.Rectangle, k *ink) {
	// Clip every polygon to the band (a pixel wider each side than clip,
	// so edges just outside still count) and find their tight box.
	lo, hi := pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
	cb := box{float64(clip.Min.X - 1), float64(clip.Min.Y), float64(clip.Max.X + 1), float64(clip.Max.Y)}
	clipped := p.clipped[:0]
	for i, q := range polys {
		if b := p.bounds[i]; b.y1 <= cb.y0 || b.y0 >= cb.y1 || b.x1 <= cb.x0 || b.x0 >= cb.x1 {
			continue // wholly outside the band
		}
		c := p.clipPoly(q, cb)
		if len(c) < 3 {
			continue
		}
		for _, v := range c {
			lo.x, lo.y = min(lo.x, v.x), min(lo.y, v.y)
			hi.x, hi.y = max(hi.x, v.x), max(hi.y, v.y)
		}
		clipped = append(clipped, append(p.nextPoly(len(clipped)), c...))
	}
	p.clipped = clipped
	if len(clipped) == 0 {
		return
	}
	r := image.Rectangle{
		image.Pt(max(int(math.Floor(lo.x)), clip.Min.X), max(int(math.Floor(lo.y)), clip.Min.Y)),
		image.Pt(min(int(math.Ceil(hi.x)), clip.Max.X), min(int(math.Ceil(hi.y)), clip.Max.Y))}
	if r.Empty() {
		return
	}
	p.z.Reset(r.Dx(), r.Dy())
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	for _, q := range clipped {
		p.z.MoveTo(float32(q[0].x-ox), float32(q[0].y-oy))
		for _, v := range q[1:] {
			p.z.LineTo(float32(v.x-ox), float32(v.y-oy))
		}
		p.z.ClosePath()
	}
	p.z.DrawOp = draw.Src
	p.mask.Rect = image.Rectangle{Max: r.Size()}
	p.mask.Stride = r.Dx()
	if n := r.Dx() * r.Dy(); cap(p.mask.Pix) < n {
		p.mask.Pix = make([]uint8, n)
	} else {
		p.mask.Pix = p.mask.Pix[:n]
	}
	p.z.Draw(&p.mask, p.mask.Rect, image.Opaque, image.Point{})
	for y := range r.Dy() {
		row := (r.Min.Y+y)*p.stride + 4*r.Min.X
		k.overRow(p.pix[row:row+4*r.Dx()], p.mask.Pix[y*r.Dx():(y+1)*r.Dx()])
	}
}

// nextPoly returns the i-th reusable polygon buffer, emptied.
func (p *painter) nextPoly(i int) []pt {
	if i < len(p.polyBufs) {
		return p.polyBufs[i][:0]
	}
	p.polyBufs = append(p.polyBufs, make([]pt, 0, 8))
	return p.polyBufs[i][:0]
}

// clipPoly clips q to b (Sutherland–Hodgman, one side of b at a time).
// The result may have edges that run along b's sides both ways; they
// cancel under non-zero winding. It lives in p's scratch buffers until
// the next call.
func (p *painter) clipPoly(q []pt, b box) []pt {
	in := q
	for side := range 4 {
		out := p.clip[side%2][:0]
		inside := func(v pt) bool {
			switch side {
			case 0:
				return v.x >= b.x0
			case 1:
				return v.x <= b.x1
			case 2:
				return v.y >= b.y0
			}
			return v.y <= b.y1
		}
		cross := func(a, c pt) pt {
			var t float64
			switch side {
			case 0:
				t = (b.x0 - a.x) / (c.x - a.x)
			case 1:
				t = (b.x1 - a.x) / (c.x - a.x)
			case 2:
				t = (b.y0 - a.y) / (c.y - a.y)
			default:
				t = (b.y1 - a.y) / (c.y - a.y)
			}
			v := pt{a.x + t*(c.x-a.x), a.y + t*(c.y-a.y)}
			// Put the crossing exactly on the side, whatever the rounding.
			switch side {
			case 0:
				v.x = b.x0
			case 1:
				v.x = b.x1
			case 2:
				v.y = b.y0
			default:
				v.y = b.y1
			}
			return v
		}
		for i, c := range in {
			a := in[(i+len(in)-1)%len(in)]
			switch ai, ci := inside(a), inside(c); {
			case ai && ci:
				out = append(out, c)
			case ai:
				out = append(out, cross(a, c))
			case ci:
				out = append(out, cross(a, c), c)
			}
		}
		p.clip[side%2] = out
		in = out
		if len(in) == 0 {
			break
		}
	}
	return in
}
