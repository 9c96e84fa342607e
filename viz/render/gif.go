package render

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/stridelab/stridelab/viz"
)

// GIF writes frames as an animated GIF that loops forever, frame i shown
// for delays[i] hundredths of a second. Every frame is drawn as Raster
// draws it and mapped, without dithering, onto one palette for the whole
// animation, made from the display lists (see palette.go): every colour
// the frames paint flat is in it exactly, and anti-aliased edges go to
// the nearest of a few blends between each stroke, line or text colour
// and the colours it lies on.
//
// The first frame is whole; each later one holds only the box of pixels
// that changed since the frame before (a 1×1 box when none did), drawn
// over it (disposal none), which keeps animations of a moving highlight
// small and quick to encode.
//
// GIF refuses no frames, a delays slice of another length, a delay
// outside 0 to 65535 (ErrFrames), frames of no pixels or over 65535 a
// side, and frames that differ in size (ErrSize). The same frames give
// the same bytes.
func GIF(w io.Writer, frames []viz.Frame, delays []int) error {
	const op = "gif"
	if len(frames) == 0 {
		return newError(ErrFrames, op, "no frames")
	}
	if len(delays) != len(frames) {
		return newError(ErrFrames, op, "%d delays for %d frames; give one delay a frame", len(delays), len(frames))
	}
	for i, d := range delays {
		if d < 0 || d > 0xffff {
			return newError(ErrFrames, op, "delay %d of frame %d is outside 0 to 65535 hundredths of a second", d, i)
		}
	}
	W, H := frames[0].W, frames[0].H
	if err := checkSize(op, W, H); err != nil {
		return err
	}
	if W > 0xffff || H > 0xffff {
		return newError(ErrSize, op, "frame is %d×%d; GIF allows at most 65535 a side", W, H)
	}
	for i, f := range frames {
		if f.W != W || f.H != H {
			return newError(ErrSize, op, "frame %d is %d×%d but frame 0 is %d×%d; every frame must have one size", i, f.W, f.H, W, H)
		}
	}

	pb := newPaletteBuilder()
	for _, f := range frames {
		pb.add(f)
	}
	pal := pb.palette()

	images := drawGIFFrames(frames, pal)
	disposal := make([]byte, len(frames))
	for i := range disposal {
		disposal[i] = gif.DisposalNone
	}
	bgIndex := newMapper(pal).index(pb.ink(frames[0].Background).word & 0xffffff)
	return gif.EncodeAll(w, &gif.GIF{
		Image:           images,
		Delay:           delays,
		LoopCount:       0,
		Config:          image.Config{ColorModel: pal, Width: W, Height: H},
		Disposal:        disposal,
		BackgroundIndex: bgIndex,
	})
}

// gifBatch is how many frames a worker draws per batch, each into a
// buffer of its own (3.5 MiB at 1280×720): two, so that a worker that
// finishes early has a second frame to draw before the batch ends.
const gifBatch = 2

// maxGIFWorkers caps the goroutines drawing a GIF's frames: with four,
// drawing already takes less time than the serial palette and encoding
// on a typical scene, and more would only hold more frames' pixels.
const maxGIFWorkers = 4

// drawGIFFrames draws the frames and maps each onto pal: the first frame
// whole, every later one cropped to the box that differs from the frame
// before. Batches of frames are drawn, then diffed and mapped, by up to
// maxGIFWorkers goroutines (each frame by one); the last frame of a batch
// stays for the next to diff against.
func drawGIFFrames(frames []viz.Frame, pal color.Palette) []*image.Paletted {
	W, H := frames[0].W, frames[0].H
	workers := max(1, min(runtime.GOMAXPROCS(0), maxGIFWorkers, len(frames)))
	batch := min(gifBatch*workers, len(frames))
	bufs := make([]*image.RGBA, batch+1) // bufs[0] holds the frame before the batch
	for i := range bufs {
		bufs[i] = image.NewRGBA(image.Rect(0, 0, W, H))
	}
	mappers := make([]*mapper, workers)
	for i := range mappers {
		mappers[i] = newMapper(pal)
	}
	images := make([]*image.Paletted, len(frames))
	parallel := func(n int, fn func(worker, j int)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for j := int(next.Add(1) - 1); j < n; j = int(next.Add(1) - 1) {
					fn(w, j)
				}
			})
		}
		wg.Wait()
	}
	for start := 0; start < len(frames); start += batch {
		n := min(batch, len(frames)-start)
		parallel(n, func(_, j int) { drawFrame(bufs[j+1], frames[start+j], 1) })
		parallel(n, func(w, j int) {
			i, cur := start+j, bufs[j+1]
			r := cur.Rect
			if i > 0 {
				r = changed(bufs[j], cur)
			}
			pm := image.NewPaletted(r, pal)
			for y := r.Min.Y; y < r.Max.Y; y++ {
				o := pm.PixOffset(r.Min.X, y)
				mappers[w].mapRow(pm.Pix[o:o+r.Dx()], cur.Pix[cur.PixOffset(r.Min.X, y):])
			}
			images[i] = pm
		})
		bufs[0], bufs[n] = bufs[n], bufs[0]
	}
	return images
}

// changed is the smallest box holding every pixel in which a and b (of
// one size) differ, or the 1×1 box at the origin when none does.
func changed(a, b *image.RGBA) image.Rectangle {
	r := image.Rectangle{Min: b.Rect.Max, Max: b.Rect.Min}
	for y := b.Rect.Min.Y; y < b.Rect.Max.Y; y++ {
		ra, rb := a.Pix[a.PixOffset(0, y):][:4*b.Rect.Dx()], b.Pix[b.PixOffset(0, y):][:4*b.Rect.Dx()]
		if bytes.Equal(ra, rb) {
			continue
		}
		x0, x1 := 0, len(rb)/4
		for x0 < x1 && binary.LittleEndian.Uint32(ra[4*x0:]) == binary.LittleEndian.Uint32(rb[4*x0:]) {
			x0++
		}
		for x1 > x0 && binary.LittleEndian.Uint32(ra[4*x1-4:]) == binary.LittleEndian.Uint32(rb[4*x1-4:]) {
			x1--
		}
		r.Min.X, r.Max.X = min(r.Min.X, x0), max(r.Max.X, x1)
		r.Min.Y, r.Max.Y = min(r.Min.Y, y), max(r.Max.Y, y+1)
	}
	if r.Empty() {
		return image.Rect(0, 0, 1, 1)
	}
	return r
}
