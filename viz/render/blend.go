package render

import (
	"encoding/binary"

	"github.com/stridelab/stridelab/viz"
)

// Compositing: every pixel this package paints goes through ink.over, so
// the blend is stated once. Pixels are premultiplied 8-bit RGBA, as in
// image.RGBA, and a paint at coverage a/255 (0 to 255) composites with
// draw.Over:
//
//	src  = colour premultiplied, times a/255
//	keep = 255 − alpha·a/255
//	px   = src + px·keep/255   for each channel, products rounded
//
// All products come from one table, so a blend is a few loads and adds,
// and an opaque colour at full coverage gives exactly its own bytes.

// mul[x][y] is x·y/255 rounded: the product of two 8-bit fractions.
var mul = func() *[256][256]uint8 {
	var t [256][256]uint8
	for x := range 256 {
		for y := range 256 {
			t[x][y] = uint8((x*y + 127) / 255)
		}
	}
	return &t
}()

// ink is a colour ready to composite at any coverage.
type ink struct {
	c      viz.Color
	opaque bool
	word   uint32      // the colour premultiplied, as a little-endian R, G, B, A pixel
	src    [256]uint32 // src[a]: the premultiplied colour times a/255, as a pixel
	keep   [256]uint8  // keep[a]: 255 − alpha·a/255, what is kept of the pixel under
}

func (k *ink) set(c viz.Color) {
	k.c, k.opaque = c, c.A == 255
	r, g, b := mul[c.R][c.A], mul[c.G][c.A], mul[c.B][c.A]
	for a := range 256 {
		k.src[a] = uint32(mul[r][a]) | uint32(mul[g][a])<<8 | uint32(mul[b][a])<<16 | uint32(mul[c.A][a])<<24
		k.keep[a] = 255 - mul[c.A][a]
	}
	k.word = k.src[255]
}

// maxInks is how many colours' inks a painter keeps: more than a scene
// has colours (a dozen or two), and few enough to find by a linear scan.
const maxInks = 32

// ink returns p's ink of c, replacing the oldest of its maxInks inks when
// c is new.
func (p *painter) ink(c viz.Color) *ink {
	for _, k := range p.inks {
		if k.c == c {
			return k
		}
	}
	var k *ink
	if len(p.inks) < maxInks {
		k = new(ink)
		p.inks = append(p.inks, k)
	} else {
		k = p.inks[p.oldest]
		p.oldest = (p.oldest + 1) % maxInks
	}
	k.set(c)
	return k
}

// over composites k at coverage a onto the pixel px.
func (k *ink) over(px []uint8, a uint8) {
	put(px, &mul[k.keep[a]], k.src[a])
}

// put sets each byte of the pixel px to s's plus px's times keep/255,
// where m is &mul[keep]: the blend, small enough to be inlined in loops.
func put(px []uint8, m *[256]uint8, s uint32) {
	px = px[:4]
	px[0] = uint8(s) + m[px[0]]
	px[1] = uint8(s>>8) + m[px[1]]
	px[2] = uint8(s>>16) + m[px[2]]
	px[3] = uint8(s>>24) + m[px[3]]
}

// overWord is over for a pixel held in a uint32 (little-endian R, G, B,
// A): what the pixel d becomes under k at coverage a.
func (k *ink) overWord(d uint32, a uint8) uint32 {
	var px [4]uint8
	binary.LittleEndian.PutUint32(px[:], d)
	k.over(px[:], a)
	return binary.LittleEndian.Uint32(px[:])
}

// overRow composites k onto the pixels of dst at the coverages cov, one
// a pixel: the loop every mask (glyph, vector shape, box edge) ends in.
func (k *ink) overRow(dst []uint8, cov []uint8) {
	dst = dst[:4*len(cov)]
	for i, a := range cov {
		switch {
		case a == 0:
		case a == 255 && k.opaque:
			binary.LittleEndian.PutUint32(dst[4*i:], k.word)
		default:
			put(dst[4*i:], &mul[k.keep[a]], k.src[a])
		}
	}
}

// coverage turns an area in [0, 1] into an 8-bit coverage, rounded.
func coverage(area float64) uint8 {
	if area <= 0 {
		return 0
	}
	if area >= 1 {
		return 255
	}
	return uint8(area*255 + 0.5)
}

// span paints pixels [x0, x1) of row y at coverage a.
func (p *painter) span(y, x0, x1 int, k *ink, a uint8) {
	if x1 <= x0 || a == 0 {
		return
	}
	row := p.pix[y*p.stride+4*x0 : y*p.stride+4*x1]
	if a == 255 && k.opaque {
		fillWord(row, k.word)
		return
	}
	m, s := &mul[k.keep[a]], k.src[a]
	for i := 0; i+4 <= len(row); i += 4 {
		put(row[i:], m, s)
	}
}

// fillWord sets every 4-byte pixel of row to word, two pixels a store.
func fillWord(row []byte, word uint32) {
	two := uint64(word) | uint64(word)<<32
	i := 0
	for ; i+8 <= len(row); i += 8 {
		binary.LittleEndian.PutUint64(row[i:], two)
	}
	if i < len(row) {
		binary.LittleEndian.PutUint32(row[i:], word)
	}
}

// background sets every pixel of the painter's rows to c (Src, not Over).
func (p *painter) background(c viz.Color) {
	if p.y1 <= p.y0 || p.w == 0 {
		return
	}
	var k ink
	k.set(c)
	first := p.pix[p.y0*p.stride : p.y0*p.stride+4*p.w]
	fillWord(first, k.word)
	for y := p.y0 + 1; y < p.y1; y++ {
		copy(p.pix[y*p.stride:y*p.stride+4*p.w], first)
	}
}
