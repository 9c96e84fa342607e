// Package render draws viz's display list without a window: as an SVG
// document, as pixels (an *image.RGBA, or a PNG) and as an animated GIF.
//
// # Overview
//
// A [viz.Frame] is a background and a list of rects, lines and texts in
// pixel coordinates. [SVG] writes it as vector elements; [Raster] and
// [Draw] paint it anti-aliased; [PNG] encodes what Raster paints; [GIF]
// animates a sequence of frames. All of them draw the same things the
// same way: hatch lines, dash lengths, arrow heads and font families
// follow one set of rules (style.go), and the same items are skipped (a
// rect of no size, a line of no width or length, a colour of zero alpha,
// empty text or text over 1024 px). The same input gives the same bytes.
//
// Text is set in the embedded Go fonts of [viz.Face]: SVG names them
// ("Go, sans-serif", "Go Mono, monospace", bold by font-weight) and the
// rasteriser draws their glyphs, anchored by [viz.TextWidth].
//
// # Pixels and colours
//
// Colours are sRGB with straight alpha; pixels are premultiplied 8-bit
// RGBA, as in image.RGBA. Every item is composited with draw.Over at its
// coverage of each pixel (blend.go states the formula once), so an opaque
// colour painted over a whole pixel gives exactly that colour's bytes.
// Axis-aligned rects and lines are covered exactly, by area; other shapes
// are rasterised by golang.org/x/image/vector and glyphs by the font
// package, their masks cached by font, size, rune and quarter-pixel
// offset. A frame is painted in bands of rows by up to GOMAXPROCS
// goroutines; the pixels do not depend on how many.
//
// A GIF has one palette for the whole animation, made from the display
// lists: the colours painted flat, exactly, then blends for the
// anti-aliased edges between each stroke, line or text colour and what it
// lies on. Pixels are mapped to the nearest palette colour without
// dithering, so flat areas stay flat.
//
// # Errors
//
// Every error is an [*Error] naming the renderer and the offending frame,
// item or value, and wraps one of the sentinels [ErrSize], [ErrFrames] or
// [ErrNumber] (or [ErrFormat], from [Encode]) for errors.Is. Errors of
// the io.Writer come back unchanged, and so do the scene's own (a step
// out of range) and tensor's ErrTooLarge when Encode refuses a GIF.
// Raster and Draw return no error: they skip what they cannot draw.
// [WriteFileAtomic]'s file-system errors read "render: cannot write
// PATH: why" and wrap the os error.
//
// # Concurrency
//
// Every function may be called from several goroutines at once: the
// glyph cache they share calls viz.Face's faces, which are not safe for
// concurrent use, under viz's one lock of text (viz.LockFaces), the lock
// viz.Face and viz.TextWidth take too, so a scene can measure text while
// another goroutine draws a frame.
//
// # Platform support
//
// The package uses only the standard library, golang.org/x/image, viz,
// tensor (whose result budget Encode asks) and internal/atomicfile (the
// write behind WriteFileAtomic): no cgo and no window, so it builds and
// runs under GOOS=js GOARCH=wasm as everywhere else. Only
// WriteFileAtomic touches the file system (package os, through
// internal/atomicfile): under js it works where the host has one (Node)
// and returns an error in a browser tab, where exports are downloads
// instead.
package render
