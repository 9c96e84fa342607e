package render

import (
	"encoding/binary"
	"image"
	"image/png"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/image/vector"

	"github.com/stridelab/stridelab/viz"
)

// Raster draws f into a new W×H image (an empty one when W or H is not
// positive), anti-aliased, painting the background and then the items in
// order, each composited with draw.Over:
//
//   - a Rect paints its fill, then its hatch lines (x+y = 6k, 1 px wide,
//     clipped to the rect, in the Stroke colour), then its outline,
//     StrokeWidth wide and centred on the rect's edge, dashed when Dash;
//   - a Line paints a butt-ended stroke Width wide, dashed when Dash, with
//     a filled triangular head at (X2, Y2) when Arrow, max(8, 4·Width)
//     long and 0.9 times that wide;
//   - a Text paints its glyphs in viz.Face(Font, Size) (Go Regular for a
//     Font viz does not define), its pen starting at X less 0, ½ or all
//     of viz.TextWidth as Anchor says, its baseline at Y rounded to a
//     whole pixel.
//
// Rects, and lines along an axis, are painted by exact area coverage
// (only their fractional edges are blended); other shapes go through
// golang.org/x/image/vector. Items with a coordinate that is NaN or
// infinite, a rect of no width or height, a line of no width or length,
// a colour of zero alpha, empty text and text larger than 1024 px are
// skipped.
//
// The frame is painted in bins of rows by up to GOMAXPROCS goroutines;
// the pixels do not depend on how many. Draw paints into an image the
// caller keeps, which saves allocating one a frame.
func Raster(f viz.Frame) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, max(f.W, 0), max(f.H, 0)))
	drawFrame(dst, f, runtime.GOMAXPROCS(0))
	return dst
}

// PNG writes f drawn by Raster as a PNG image. The encoding is
// deterministic: the same frame gives the same bytes.
func PNG(w io.Writer, f viz.Frame) error {
	if err := checkSize("png", f.W, f.H); err != nil {
		return err
	}
	return png.Encode(w, Raster(f))
}

// binRows is the height of the bins a frame is painted in. Each bin is
// painted whole, background and every item that reaches into it, before
// the next: 64 rows of a 1280 px frame are 320 KiB, which stays in a
// core's cache while the bin's items are painted over each other, where
// the whole frame (3.5 MiB) would not; and a 10 px cell straddles two
// bins (and is visited twice) one time in six, not one in three as with
// 32 rows. Bins are a multiple of bandRows, so shapes are cut the same way
// whatever the bin (see path.go), and are handed to up to GOMAXPROCS
// goroutines in turn.
const binRows = 4 * bandRows

// frameJob is the scratch of one drawFrame call, reused between calls.
type frameJob struct {
	items    []viz.Item // itemValue of each item
	glyphs   []placed   // layout(items)
	first    []int32    // the glyphs of item i are glyphs[first[i]:first[i+1]]
	bins     [][]int32  // the items that reach into each bin, in order
	next     atomic.Int64
	painters []*painter
}

// jobs keeps the scratch of finished drawFrame calls for the next ones.
// Not a sync.Pool: that is emptied at every garbage collection, which a
// 3.5 MiB frame a call brings on about every call, and a fresh job costs
// its buffers' first touch and its painters' inks again.
var jobs struct {
	sync.Mutex
	free []*frameJob
}

// maxFreeJobs is how many jobs are kept: one per goroutine drawing
// frames at once (GIF's workers), on machines of a few cores.
const maxFreeJobs = 8

func getJob() *frameJob {
	jobs.Lock()
	defer jobs.Unlock()
	if n := len(jobs.free); n > 0 {
		j := jobs.free[n-1]
		jobs.free = jobs.free[:n-1]
		return j
	}
	return new(frameJob)
}

func putJob(j *frameJob) {
	clear(j.items) // drop the frame's items
	jobs.Lock()
	defer jobs.Unlock()
	if len(jobs.free) < maxFreeJobs {
		jobs.free = append(jobs.free, j)
	}
}

// Draw paints f onto dst as Raster would, frame pixel (x, y) onto dst
// pixel (x, y) + dst.Rect.Min, clipped to dst: the background and every
// item, over whatever dst held. It reuses dst's pixels where Raster
// allocates new ones, for a caller that draws frame after frame.
func Draw(dst *image.RGBA, f viz.Frame) {
	drawFrame(dst, f, runtime.GOMAXPROCS(0))
}

// drawFrame is Draw with up to workers goroutines.
func drawFrame(dst *image.RGBA, f viz.Frame, workers int) {
	w, h := min(dst.Rect.Dx(), f.W), min(dst.Rect.Dy(), f.H)
	if w <= 0 || h <= 0 {
		return
	}
	c := canvas{dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y):], dst.Stride, w, h}
	job := getJob()
	job.bin(f.Items, h)
	nbins := (h + binRows - 1) / binRows
	n := max(1, min(workers, nbins))
	for len(job.painters) < n {
		job.painters = append(job.painters, new(painter))
	}
	job.next.Store(0)
	work := func(p *painter) {
		for {
			b := int(job.next.Add(1) - 1)
			if b >= nbins {
				return
			}
			p.paint(c, b*binRows, min(h, (b+1)*binRows), f.Background, job, job.bins[b])
		}
	}
	if n == 1 {
		work(job.painters[0])
	} else {
		var wg sync.WaitGroup
		for _, p := range job.painters[:n] {
			wg.Go(func() { work(p) })
		}
		wg.Wait()
	}
	putJob(job)
}

// canvas is the pixels a frame is painted on: w×h pixels, the pixel
// (x, y) at pix[y*stride+4*x:], 4 bytes, premultiplied R, G, B, A.
type canvas struct {
	pix    []uint8
	stride int
	w, h   int
}

// bin lays out the text of items and sorts the items into the bins of a
// frame h rows high by the rows they may paint.
func (job *frameJob) bin(items []viz.Item, h int) {
	job.items = job.items[:0]
	for _, it := range items {
		job.items = append(job.items, itemValue(it))
	}
	job.glyphs = layout(job.glyphs[:0], job.items)
	job.first = job.first[:0]
	g := 0
	for i := range job.items {
		for g < len(job.glyphs) && job.glyphs[g].item < int32(i) {
			g++
		}
		job.first = append(job.first, int32(g))
	}
	job.first = append(job.first, int32(len(job.glyphs)))

	nbins := (h + binRows - 1) / binRows
	for len(job.bins) < nbins {
		job.bins = append(job.bins, nil)
	}
	for b := range job.bins {
		job.bins[b] = job.bins[b][:0]
	}
	for i, it := range job.items {
		y0, y1, ok := job.rows(i, it)
		if !ok {
			continue
		}
		y0, y1 = max(y0, 0), min(y1, float64(h))
		if !(y1 > y0) {
			continue
		}
		for b := int(y0) / binRows; b <= (int(math.Ceil(y1))-1)/binRows && b < nbins; b++ {
			job.bins[b] = append(job.bins[b], int32(i))
		}
	}
}

// rows returns the rows [y0, y1) that item i may paint, or false when it
// paints nothing.
func (job *frameJob) rows(i int, it viz.Item) (y0, y1 float64, ok bool) {
	switch it := it.(type) {
	case viz.Rect:
		if !finite(it.X, it.Y, it.W, it.H, it.StrokeWidth) || !(it.W > 0 && it.H > 0) {
			return 0, 0, false
		}
		h := max(it.StrokeWidth/2, 0)
		return math.Floor(it.Y - h), math.Ceil(it.Y + it.H + h), true
	case viz.Line:
		if !finite(it.X1, it.Y1, it.X2, it.Y2, it.Width) || !(it.Width > 0) || !it.Color.Visible() {
			return 0, 0, false
		}
		reach := it.Width/2 + max(8, 4*it.Width) // half the width, or the head
		return math.Floor(min(it.Y1, it.Y2) - reach), math.Ceil(max(it.Y1, it.Y2) + reach), true
	case viz.Text:
		gs := job.glyphs[job.first[i]:job.first[i+1]]
		if len(gs) == 0 {
			return 0, 0, false
		}
		lo, hi := gs[0].y, gs[0].y+int32(gs[0].m.h)
		for _, g := range gs[1:] {
			lo, hi = min(lo, g.y), max(hi, g.y+int32(g.m.h))
		}
		return float64(lo), float64(hi), true
	}
	return 0, 0, false
}

// painter paints items onto the rows [y0, y1) of a canvas.
type painter struct {
	pix    []uint8
	stride int
	w      int
	y0, y1 int

	inks   []*ink // see blend.go
	oldest int

	cover []uint8 // scratch of ring: coverages of edge columns

	// Scratch of path.go: the rasterizer and its mask, the polygons of
	// an item, clipping buffers and the clipped polygons.
	z        vector.Rasterizer
	mask     image.Alpha
	polys    [][]pt
	bounds   []box // of each of polys
	clip     [2][]pt
	clipped  [][]pt
	polyBufs [][]pt
}

// paint paints the background and the items of one bin onto rows
// [y0, y1) of c.
func (p *painter) paint(c canvas, y0, y1 int, bg viz.Color, job *frameJob, bin []int32) {
	p.pix, p.stride, p.w, p.y0, p.y1 = c.pix, c.stride, c.w, y0, y1
	p.background(bg)
	for _, i := range bin {
		switch it := job.items[i].(type) {
		case viz.Rect:
			p.rect(it)
		case viz.Line:
			p.line(it)
		case viz.Text:
			p.text(job.glyphs[job.first[i]:job.first[i+1]], p.ink(it.Color))
		}
	}
	p.pix = nil
}

func (p *painter) rect(r viz.Rect) {
	if !finite(r.X, r.Y, r.W, r.H, r.StrokeWidth) || !(r.W > 0 && r.H > 0) {
		return
	}
	h := 0.0
	if r.Stroke.Visible() && r.StrokeWidth > 0 {
		h = r.StrokeWidth / 2
	}
	if r.Y+r.H+h <= float64(p.y0) || r.Y-h >= float64(p.y1) {
		return // not in this band
	}
	b := box{r.X, r.Y, r.X + r.W, r.Y + r.H}
	if r.Fill.Visible() {
		p.ring(b, box{}, p.ink(r.Fill))
	}
	if !r.Stroke.Visible() {
		return
	}
	stroke := p.ink(r.Stroke)
	if r.Hatch {
		p.hatch(b, stroke)
	}
	if h == 0 {
		return
	}
	if !r.Dash {
		p.ring(box{b.x0 - h, b.y0 - h, b.x1 + h, b.y1 + h}, box{b.x0 + h, b.y0 + h, b.x1 - h, b.y1 - h}, stroke)
		return
	}
	// Each side owns the corner at its start: a drawn part that starts at
	// the corner reaches h back over it, and no part reaches into the
	// corner at the side's end, so no pixel is painted twice.
	// Only the part of a side near the painter's rows can show.
	phase := 0.0
	span := func(a0, a1 float64) (float64, float64) { return a0 - h - 1, a1 + h + 1 }
	xlo, xhi := span(0, float64(p.w))
	ylo, yhi := span(float64(p.y0), float64(p.y1))
	side := func(length, from, dir, lo, hi float64, piece func(a, b float64) box) {
		// The window along the side: where from+dir·t lies in [lo, hi].
		wlo, whi := (lo-from)*dir, (hi-from)*dir
		if dir < 0 {
			wlo, whi = whi, wlo
		}
		phase = dashes(length, r.StrokeWidth, phase, wlo, whi, func(t0, t1 float64) {
			if t0 == 0 {
				t0 = -h
			}
			if t1 = min(t1, length-h); t1 > t0 {
				p.ring(piece(t0, t1), box{}, stroke)
			}
		})
	}
	side(r.W, b.x0, 1, xlo, xhi, func(a, c float64) box { return box{b.x0 + a, b.y0 - h, b.x0 + c, b.y0 + h} })
	side(r.H, b.y0, 1, ylo, yhi, func(a, c float64) box { return box{b.x1 - h, b.y0 + a, b.x1 + h, b.y0 + c} })
	side(r.W, b.x1, -1, xlo, xhi, func(a, c float64) box { return box{b.x1 - c, b.y1 - h, b.x1 - a, b.y1 + h} })
	side(r.H, b.y1, -1, ylo, yhi, func(a, c float64) box { return box{b.x0 - h, b.y1 - c, b.x0 + h, b.y1 - a} })
}

func (p *painter) line(l viz.Line) {
	if !finite(l.X1, l.Y1, l.X2, l.Y2, l.Width) || !(l.Width > 0) || !l.Color.Visible() {
		return
	}
	dx, dy := l.X2-l.X1, l.Y2-l.Y1
	n, ok := lineLength(l)
	if !ok {
		return
	}
	reach := l.Width/2 + max(8, 4*l.Width) // past the ends: half the width, or the head
	if max(l.Y1, l.Y2)+reach <= float64(p.y0) || min(l.Y1, l.Y2)-reach >= float64(p.y1) {
		return // not in this band
	}
	k := p.ink(l.Color)
	ux, uy := dx/n, dy/n
	h := l.Width / 2
	shaft := n
	var head [3]pt
	if l.Arrow {
		base, hd, _ := arrow(l)
		head = hd
		shaft = math.Hypot(base.x-l.X1, base.y-l.Y1)
	}
	at := func(t float64) pt { return pt{l.X1 + ux*t, l.Y1 + uy*t} }
	axis := dx == 0 || dy == 0
	// piece paints the shaft from t0 to t1, or adds it to p.polys.
	piece := func(t0, t1 float64) {
		a, b := at(t0), at(t1)
		if axis {
			p.ring(box{min(a.x, b.x) - math.Abs(uy)*h, min(a.y, b.y) - math.Abs(ux)*h,
				max(a.x, b.x) + math.Abs(uy)*h, max(a.y, b.y) + math.Abs(ux)*h}, box{}, k)
			return
		}
		p.addPoly(pt{a.x - uy*h, a.y + ux*h}, pt{b.x - uy*h, b.y + ux*h}, pt{b.x + uy*h, b.y - ux*h}, pt{a.x + uy*h, a.y - ux*h})
	}
	p.polys = p.polys[:0]
	switch {
	case l.Dash:
		lo, hi := p.window(l, ux, uy, l.Width/2+1)
		dashes(shaft, l.Width, 0, lo, hi, piece)
		if l.Arrow {
			p.addPoly(head[:]...)
		}
	case l.Arrow && shaft > 0:
		// Shaft and head as one polygon, so no seam shows between them.
		a, b := at(0), at(shaft)
		p.addPoly(pt{a.x - uy*h, a.y + ux*h}, pt{b.x - uy*h, b.y + ux*h}, head[1], head[0], head[2],
			pt{b.x + uy*h, b.y - ux*h}, pt{a.x + uy*h, a.y - ux*h})
	case l.Arrow:
		p.addPoly(head[:]...)
	default:
		piece(0, n)
	}
	p.fill(p.polys, k)
}

// window returns the part [lo, hi] of l, as distances from its start
// along (ux, uy), that lies within reach of the painter's rows and the
// frame's columns (Liang–Barsky clipping); lo > hi when none does.
func (p *painter) window(l viz.Line, ux, uy, reach float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	for _, c := range [2]struct{ o, d, a, b float64 }{
		{l.X1, ux, -reach, float64(p.w) + reach},
		{l.Y1, uy, float64(p.y0) - reach, float64(p.y1) + reach},
	} {
		if c.d == 0 {
			if c.o < c.a || c.o > c.b {
				return 1, 0
			}
			continue
		}
		t0, t1 := (c.a-c.o)/c.d, (c.b-c.o)/c.d
		lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
	}
	return lo, hi
}

// addPoly appends a polygon to p.polys, reusing the slices' storage.
func (p *painter) addPoly(pts ...pt) {
	if len(p.polys) < cap(p.polys) {
		p.polys = p.polys[:len(p.polys)+1]
		p.polys[len(p.polys)-1] = append(p.polys[len(p.polys)-1][:0], pts...)
		return
	}
	p.polys = append(p.polys, append([]pt(nil), pts...))
}

// text composites the laid-out glyphs of one Text in k.
func (p *painter) text(glyphs []placed, k *ink) {
	for _, g := range glyphs {
		m, x, y := g.m, int(g.x), int(g.y)
		r0, r1 := max(y, p.y0), min(y+m.h, p.y1)
		c0, c1 := max(x, 0), min(x+m.w, p.w)
		if r0 >= r1 || c0 >= c1 {
			continue
		}
		for yy := r0; yy < r1; yy++ {
			// overRow, written out: a call a row costs as much as the row.
			dst := p.pix[yy*p.stride+4*c0 : yy*p.stride+4*c1]
			for i, a := range m.pix[(yy-y)*m.w+(c0-x) : (yy-y)*m.w+(c1-x)] {
				switch {
				case a == 0:
				case a == 255 && k.opaque:
					binary.LittleEndian.PutUint32(dst[4*i:], k.word)
				default:
					k.over(dst[4*i:], a)
				}
			}
		}
	}
}
