package render

import (
	"image"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/stridelab/stridelab/viz"
)

// Text is drawn from cached glyph masks: each (font, size, rune,
// quarter-pixel offset) is rasterised once by viz.Face and then only
// composited. Glyphs sit on whole-pixel baselines and quarter-pixel pen
// positions: four subpixel variants keep the spacing of unhinted text
// even, and a whole-pixel baseline keeps horizontal strokes crisp.
const (
	subpixels = 1 << subShift
	subShift  = 2
)

// maxGlyphBytes bounds the glyph cache; past it the cache starts afresh.
// 16 MiB holds every printable ASCII glyph of the three fonts, at all four
// offsets, at a dozen sizes of up to 48 px.
const maxGlyphBytes = 16 << 20

// maxTextSize is the largest text size drawn, in pixels per em: a larger
// one would cost a mask bigger than any frame worth drawing.
const maxTextSize = 1024

// glyphMask is one glyph's coverage at one subpixel offset: w×h alpha
// values whose top left pixel lies (dx, dy) from the pen's whole pixel on
// the baseline.
type glyphMask struct {
	dx, dy, w, h int
	pix          []uint8
	alpha        *image.Alpha // pix as an image, made when TextGlyphs first hands it out
}

type faceKey struct {
	font viz.Font
	size float64
}

type maskKey struct {
	r   rune
	sub int
}

// faceGlyphs caches what text layout asks of one face.
type faceGlyphs struct {
	face      font.Face
	asciiAdv  [128]fixed.Int26_6
	asciiHave [128]bool
	asciiMask [128][subpixels]*glyphMask
	asciiKern *[128 * 128]fixed.Int26_6 // noKern where not yet asked
	adv       map[rune]fixed.Int26_6
	kern      map[[2]rune]fixed.Int26_6
	masks     map[maskKey]*glyphMask
}

// glyphCache is shared by every frame drawn. viz's lock of text
// (viz.LockFaces) guards it and every call this package makes into a face,
// which is not safe for concurrent use: the same lock viz.TextWidth takes,
// so text can be measured while a frame is laid out on another goroutine.
var glyphCache struct {
	faces map[faceKey]*faceGlyphs
	bytes int
}

// lockFace returns the glyphs of f at size with viz's lock of text held;
// the caller unlocks it (unlockFace) when done with them.
func lockFace(f viz.Font, size float64) *faceGlyphs {
	viz.LockFaces()
	if glyphCache.bytes > maxGlyphBytes || glyphCache.faces == nil {
		glyphCache.faces = map[faceKey]*faceGlyphs{}
		glyphCache.bytes = 0
	}
	k := faceKey{f, size}
	g := glyphCache.faces[k]
	if g == nil {
		g = &faceGlyphs{
			face:  viz.FaceLocked(f, size),
			adv:   map[rune]fixed.Int26_6{},
			kern:  map[[2]rune]fixed.Int26_6{},
			masks: map[maskKey]*glyphMask{},
		}
		glyphCache.faces[k] = g
	}
	return g
}

func unlockFace() { viz.UnlockFaces() }

func (g *faceGlyphs) advance(r rune) fixed.Int26_6 {
	if 0 <= r && r < 128 {
		if !g.asciiHave[r] {
			g.asciiAdv[r], _ = g.face.GlyphAdvance(r)
			g.asciiHave[r] = true
		}
		return g.asciiAdv[r]
	}
	a, ok := g.adv[r]
	if !ok {
		a, _ = g.face.GlyphAdvance(r)
		g.adv[r] = a
	}
	return a
}

// noKern marks an ASCII pair whose kerning is not yet cached.
const noKern = fixed.Int26_6(math.MinInt32)

func (g *faceGlyphs) kerning(a, b rune) fixed.Int26_6 {
	if 0 <= a && a < 128 && 0 <= b && b < 128 {
		if g.asciiKern == nil {
			g.asciiKern = new([128 * 128]fixed.Int26_6)
			glyphCache.bytes += len(g.asciiKern) * 4
			for i := range g.asciiKern {
				g.asciiKern[i] = noKern
			}
		}
		k := &g.asciiKern[a<<7|b]
		if *k == noKern {
			*k = g.face.Kern(a, b)
		}
		return *k
	}
	k, ok := g.kern[[2]rune{a, b}]
	if !ok {
		k = g.face.Kern(a, b)
		g.kern[[2]rune{a, b}] = k
	}
	return k
}

// width is font.MeasureString(face, s), so it equals viz.TextWidth:
//
//	for each rune c after prev: advance += Kern(prev, c) + GlyphAdvance(c)
func (g *faceGlyphs) width(s string) fixed.Int26_6 {
	var w fixed.Int26_6
	prev := rune(-1)
	for _, c := range s {
		if prev >= 0 {
			w += g.kerning(prev, c)
		}
		w += g.advance(c)
		prev = c
	}
	return w
}

// mask returns the mask of r with the pen sub/subpixels of a pixel right
// of a whole pixel.
func (g *faceGlyphs) mask(r rune, sub int) *glyphMask {
	if 0 <= r && r < 128 {
		if m := g.asciiMask[r][sub]; m != nil {
			return m
		}
	} else if m, ok := g.masks[maskKey{r, sub}]; ok {
		return m
	}
	dot := fixed.Point26_6{X: fixed.Int26_6(sub * 64 / subpixels)}
	dr, src, sp, _, _ := g.face.Glyph(dot, r)
	m := &glyphMask{dx: dr.Min.X, dy: dr.Min.Y, w: dr.Dx(), h: dr.Dy()}
	if a, ok := src.(*image.Alpha); ok && !dr.Empty() {
		m.pix = make([]uint8, m.w*m.h)
		for y := range m.h {
			o := a.PixOffset(sp.X, sp.Y+y)
			copy(m.pix[y*m.w:(y+1)*m.w], a.Pix[o:o+m.w])
		}
	} else if src != nil && !dr.Empty() {
		m.pix = make([]uint8, m.w*m.h)
		for y := range m.h {
			for x := range m.w {
				_, _, _, al := src.At(sp.X+x, sp.Y+y).RGBA()
				m.pix[y*m.w+x] = uint8(al >> 8)
			}
		}
	} else {
		m.w, m.h = 0, 0
	}
	glyphCache.bytes += len(m.pix) + 64
	if 0 <= r && r < 128 {
		g.asciiMask[r][sub] = m
	} else {
		g.masks[maskKey{r, sub}] = m
	}
	return m
}

// placed is a glyph laid out on a frame: its mask, the mask's top left
// pixel and the index of its Text in the frame's items.
type placed struct {
	m    *glyphMask
	x, y int32
	item int32
}

// layout appends the glyphs of every Text in items to dst, in order. It
// is the one place that asks the faces anything while a frame is drawn,
// so the painters of a frame's bands share its result without a lock.
//
// A text's pen starts at X less AnchorShift of its width (the width
// font.MeasureString, and so viz.TextWidth, gives) and moves by each
// rune's kerning and advance, as font.Drawer moves its dot; glyphs sit at
// the pen rounded to 1/subpixels of a pixel, on the baseline Y rounded to
// a whole pixel.
func layout(dst []placed, items []viz.Item) []placed {
	locked := false
	defer func() {
		if locked {
			unlockFace()
		}
	}()
	var g *faceGlyphs
	var gk faceKey
	for i, it := range items {
		t, ok := itemValue(it).(viz.Text)
		if !ok || !drawsText(t) {
			continue
		}
		if k := (faceKey{knownFont(t.Font), t.Size}); !locked || gk != k {
			if locked {
				unlockFace()
			}
			g, gk, locked = lockFace(k.font, k.size), k, true
		}
		x := t.X - float64(g.width(t.S))/64*AnchorShift(t.Anchor)
		if math.Abs(x) > limit || math.Abs(t.Y) > limit {
			continue
		}
		pen := fixed.Int26_6(math.Round(x * 64))
		base := int(math.Floor(t.Y + 0.5))
		prev := rune(-1)
		for _, c := range t.S {
			if prev >= 0 {
				pen += g.kerning(prev, c)
			}
			if pen > limit*64 {
				break // off any frame, and further would overflow the pen
			}
			q := (int(pen) + 1<<(5-subShift)) >> (6 - subShift) // the pen in 1/subpixels px, rounded
			if m := g.mask(c, q&(subpixels-1)); m.w > 0 {
				dst = append(dst, placed{m, int32(q>>subShift + m.dx), int32(base + m.dy), int32(i)})
			}
			pen += g.advance(c)
			prev = c
		}
	}
	return dst
}

// drawsText reports whether t paints anything: finite, of a size drawn,
// visible and not empty. SVG and Raster skip the same texts.
func drawsText(t viz.Text) bool {
	return finite(t.X, t.Y, t.Size) && t.Size > 0 && t.Size <= maxTextSize && t.Color.Visible() && t.S != ""
}

// Glyph is one glyph of a laid-out text: Mask is its coverage, drawn
// with its top left pixel at (X, Y) of the frame. Masks are made once and
// shared (until the cache starts afresh): callers never change them and
// may key what they make of one (a window's texture) on the pointer.
type Glyph struct {
	X, Y int
	Mask *image.Alpha
}

// TextGlyphs lays t out exactly as Raster draws it (the same pen, kerning,
// quarter-pixel offsets and masks) and calls fn for each glyph that has
// pixels: a live renderer draws text from the same glyphs as the files.
func TextGlyphs(t viz.Text, fn func(Glyph)) {
	if !drawsText(t) {
		return
	}
	placed := layout(nil, []viz.Item{t})
	viz.LockFaces()
	glyphs := make([]Glyph, len(placed))
	for i, p := range placed {
		if p.m.alpha == nil {
			p.m.alpha = &image.Alpha{Pix: p.m.pix, Stride: p.m.w, Rect: image.Rect(0, 0, p.m.w, p.m.h)}
		}
		glyphs[i] = Glyph{X: int(p.x), Y: int(p.y), Mask: p.m.alpha}
	}
	viz.UnlockFaces()
	for _, g := range glyphs {
		fn(g)
	}
}
