package render

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"github.com/stridelab/stridelab/viz"
)

// A GIF has one palette of at most 256 colours for the whole animation,
// made here from the display lists rather than from pixels: every flat
// colour the frames paint (the background, each fill over what lies under
// it, each stroke, line and text colour over what it lies on), then a few
// anti-alias blends between each stroke, hatch, line or text colour and
// the colour it lies on, for the edges. Flat colours are exact, so a
// frame's cells and backgrounds come out unchanged; edges round to the
// nearest blend.
//
// Colours are pixels as Raster paints them (premultiplied; a translucent
// background comes out as over black, since GIF has no partial
// transparency), keyed by their R, G and B bytes.

// maxBlends is the most blends between one pair of colours: six steps of
// 1/7 leave no edge further than 1/14 of the way from a palette colour.
const maxBlends = 6

// gridCell is the size of the buckets that find the fill under a point:
// a few cells of a typical grid scene per bucket.
const gridCell = 32

// paletteBuilder gathers the colours of a sequence of frames.
type paletteBuilder struct {
	flat  map[uint32]float64    // flat colour → pixels it covers, roughly
	pairs map[[2]uint32]float64 // (colour, colour under it) → edge pixels, roughly
	inks  map[viz.Color]*ink

	// The filled rects of the frame so far, bucketed by gridCell.
	cols, rows int
	buckets    [][]filled
}

// filled is a rect of the frame being read, the flat colour it paints
// and, when hatched, the colour of its hatch lines (else flat again).
type filled struct {
	b           box
	flat, hatch uint32
}

func newPaletteBuilder() *paletteBuilder {
	return &paletteBuilder{flat: map[uint32]float64{}, pairs: map[[2]uint32]float64{}, inks: map[viz.Color]*ink{}}
}

func (pb *paletteBuilder) ink(c viz.Color) *ink {
	k := pb.inks[c]
	if k == nil {
		k = new(ink)
		k.set(c)
		pb.inks[c] = k
	}
	return k
}

// under is the flat colour at (x, y), the fill of the last rect so far
// that holds the point, else bg, and the colour of that rect's hatch
// lines (else the flat colour again).
func (pb *paletteBuilder) under(x, y float64, bg uint32) (flat, hatch uint32) {
	if !(x >= 0 && y >= 0) {
		return bg, bg
	}
	c, r := int(x)/gridCell, int(y)/gridCell
	if c >= pb.cols || r >= pb.rows {
		return bg, bg
	}
	list := pb.buckets[r*pb.cols+c]
	for i := len(list) - 1; i >= 0; i-- {
		if b := list[i].b; x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1 {
			return list[i].flat, list[i].hatch
		}
	}
	return bg, bg
}

func (pb *paletteBuilder) addFilled(b box, flat, hatch uint32) {
	c0, r0 := max(int(math.Floor(b.x0))/gridCell, 0), max(int(math.Floor(b.y0))/gridCell, 0)
	c1, r1 := min(int(math.Ceil(b.x1))/gridCell, pb.cols-1), min(int(math.Ceil(b.y1))/gridCell, pb.rows-1)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			pb.buckets[r*pb.cols+c] = append(pb.buckets[r*pb.cols+c], filled{b, flat, hatch})
		}
	}
}

// pair notes that top is painted over bottom with anti-aliased edges.
func (pb *paletteBuilder) pair(top, bottom uint32, weight float64) {
	if top&0xffffff != bottom&0xffffff {
		pb.pairs[[2]uint32{top, bottom}] += weight
	}
}

// add reads the colours of one frame.
func (pb *paletteBuilder) add(f viz.Frame) {
	pb.cols, pb.rows = max(f.W, 0)/gridCell+1, max(f.H, 0)/gridCell+1
	if n := pb.cols * pb.rows; len(pb.buckets) < n {
		pb.buckets = make([][]filled, n)
	}
	for i := range pb.buckets {
		pb.buckets[i] = pb.buckets[i][:0]
	}
	bg := pb.ink(f.Background).word
	pb.flat[bg] += float64(f.W) * float64(f.H)
	for _, it := range f.Items {
		switch it := itemValue(it).(type) {
		case viz.Rect:
			if !finite(it.X, it.Y, it.W, it.H, it.StrokeWidth) || !(it.W > 0 && it.H > 0) {
				continue
			}
			b := box{it.X, it.Y, it.X + it.W, it.Y + it.H}.clamp()
			under, _ := pb.under(it.X+it.W/2, it.Y+it.H/2, bg)
			on := under // what the hatch and the inner half of the outline lie on
			if it.Fill.Visible() {
				on = pb.ink(it.Fill).overWord(under, 255)
				pb.flat[on] += it.W * it.H
				pb.pair(on, under, 2*(it.W+it.H))
			}
			hatch := on
			if it.Stroke.Visible() {
				k := pb.ink(it.Stroke)
				if it.Hatch {
					hatch = k.overWord(on, 255)
					pb.pair(hatch, on, it.W*it.H/2)
				}
				if it.StrokeWidth > 0 {
					in, out := k.overWord(on, 255), k.overWord(under, 255)
					pb.flat[in] += (it.W + it.H) * it.StrokeWidth
					pb.flat[out] += (it.W + it.H) * it.StrokeWidth
					pb.pair(in, on, 2*(it.W+it.H))
					pb.pair(out, under, 2*(it.W+it.H))
				}
			}
			if it.Fill.Visible() {
				pb.addFilled(b, on, hatch)
			}
		case viz.Line:
			n, ok := lineLength(it)
			if !finite(it.X1, it.Y1, it.X2, it.Y2, it.Width) || !ok || !(it.Width > 0) || !it.Color.Visible() {
				continue
			}
			under, hatch := pb.under((it.X1+it.X2)/2, (it.Y1+it.Y2)/2, bg)
			k := pb.ink(it.Color)
			top := k.overWord(under, 255)
			pb.flat[top] += n * it.Width
			pb.pair(top, under, 2*n)
			pb.pair(k.overWord(hatch, 255), hatch, n/2)
		case viz.Text:
			if !drawsText(it) {
				continue
			}
			// A point inside the text: a little after its start, before
			// its end or at its middle, halfway up a lower-case letter.
			x := it.X + it.Size/2*(1-2*AnchorShift(it.Anchor))
			under, hatch := pb.under(x, it.Y-it.Size/4, bg)
			k := pb.ink(it.Color)
			top := k.overWord(under, 255)
			n := float64(len(it.S)) * it.Size
			pb.flat[top] += n / 4
			pb.pair(top, under, n)
			pb.pair(k.overWord(hatch, 255), hatch, n/4)
		}
	}
}

// palette returns the palette: the flat colours, the most used first, up
// to 256, then as many blends of each pair, the pairs with the most edge
// pixels first, as fit in 256 (at most maxBlends a pair).
func (pb *paletteBuilder) palette() color.Palette {
	type weighted[K comparable] struct {
		k K
		w float64
	}
	flat := make([]weighted[uint32], 0, len(pb.flat))
	for k, w := range pb.flat {
		flat = append(flat, weighted[uint32]{k & 0xffffff, w})
	}
	slices.SortFunc(flat, func(a, b weighted[uint32]) int {
		return cmp.Or(cmp.Compare(b.w, a.w), cmp.Compare(a.k, b.k))
	})
	pairs := make([]weighted[[2]uint32], 0, len(pb.pairs))
	for k, w := range pb.pairs {
		pairs = append(pairs, weighted[[2]uint32]{[2]uint32{k[0] & 0xffffff, k[1] & 0xffffff}, w})
	}
	slices.SortFunc(pairs, func(a, b weighted[[2]uint32]) int {
		return cmp.Or(cmp.Compare(b.w, a.w), cmp.Compare(a.k[0], b.k[0]), cmp.Compare(a.k[1], b.k[1]))
	})

	var pal color.Palette
	seen := map[uint32]bool{}
	add := func(rgb uint32) {
		if !seen[rgb] && len(pal) < 256 {
			seen[rgb] = true
			pal = append(pal, color.RGBA{uint8(rgb), uint8(rgb >> 8), uint8(rgb >> 16), 255})
		}
	}
	for _, f := range flat {
		add(f.k)
	}
	for _, p := range pairs { // the ends of every pair, if flat left room
		add(p.k[0])
		add(p.k[1])
	}
	if len(pairs) == 0 || len(pal) == 256 {
		return pal
	}
	steps := min(maxBlends, max(1, (256-len(pal))/len(pairs)))
	for _, p := range pairs {
		for s := 1; s <= steps; s++ {
			add(lerpRGB(p.k[1], p.k[0], float64(s)/float64(steps+1)))
		}
	}
	return pal
}

// lerpRGB is the colour t of the way from a to b, each channel rounded.
func lerpRGB(a, b uint32, t float64) uint32 {
	var out uint32
	for sh := 0; sh < 24; sh += 8 {
		x, y := float64(a>>sh&0xff), float64(b>>sh&0xff)
		out |= uint32(math.Round(x+(y-x)*t)) << sh
	}
	return out
}

// mapper maps pixels to palette indices. Each colour is looked up in the
// palette once (the nearest by 2ΔR² + 4ΔG² + 3ΔB², the first of equals)
// and kept in a map, with a small direct-mapped cache in front and the
// previous pixel's index in front of that: pixels come in runs.
type mapper struct {
	pal   []uint32 // R, G, B bytes little-endian
	known map[uint32]uint8
	keys  [mapperCache]uint32
	idx   [mapperCache]uint8
}

// mapperCache is the size of the direct-mapped cache: a few thousand
// colours, as many as the anti-aliased edges of a scene make.
const mapperCache = 1 << 12

func newMapper(pal color.Palette) *mapper {
	m := &mapper{known: map[uint32]uint8{}}
	for _, c := range pal {
		r, g, b, _ := c.RGBA()
		m.pal = append(m.pal, r>>8|g>>8<<8|b>>8<<16)
	}
	for i := range m.keys {
		m.keys[i] = 1 << 31 // no R, G, B key has this bit
	}
	for i, c := range m.pal { // the palette's own colours map to themselves
		if _, ok := m.known[c]; !ok {
			m.known[c] = uint8(i)
		}
	}
	return m
}

func (m *mapper) index(rgb uint32) uint8 {
	h := (rgb * 0x9e3779b1) >> (32 - 12)
	if m.keys[h] == rgb {
		return m.idx[h]
	}
	i, ok := m.known[rgb]
	if !ok {
		i = m.nearest(rgb)
		m.known[rgb] = i
	}
	m.keys[h], m.idx[h] = rgb, i
	return i
}

func (m *mapper) nearest(rgb uint32) uint8 {
	best, bestD := 0, math.MaxInt
	r, g, b := int(rgb&0xff), int(rgb>>8&0xff), int(rgb>>16&0xff)
	for i, c := range m.pal {
		dr, dg, db := r-int(c&0xff), g-int(c>>8&0xff), b-int(c>>16&0xff)
		if d := 2*dr*dr + 4*dg*dg + 3*db*db; d < bestD {
			best, bestD = i, d
		}
	}
	return uint8(best)
}

// mapRow writes the palette index of each pixel of src (4 bytes each)
// to dst.
func (m *mapper) mapRow(dst, src []uint8) {
	src = src[:4*len(dst)]
	last, li := uint32(1<<31), uint8(0)
	for i := range dst {
		rgb := uint32(src[4*i]) | uint32(src[4*i+1])<<8 | uint32(src[4*i+2])<<16
		if rgb != last {
			last, li = rgb, m.index(rgb)
		}
		dst[i] = li
	}
}
