// Package live is the interactive renderer: the scenes of package viz,
// live in an Ebitengine window (the desktop app) or on a WebGL canvas (the
// playground's frame). Besides the desktop app's main it is the only
// package that imports Ebitengine, and nothing a headless test or the CLI
// needs imports it.
//
// # Overview
//
// An App is an ebiten.Game over a session.Session, which holds everything
// a person does (fields, step, hover and pin, zoom and pan, a lesson).
// Update reads the input once a tick into the session (input.go); Draw
// paints what the session says, with the keys' help over the scene when
// asked (help.go). Scripts (session.Event) drive the same paths as the
// mouse and the keyboard, so tests and demos act as a person would.
//
// # Drawing
//
// Paint draws a viz.Frame, the display list every renderer shares:
// rects as batched fills, lines, dashes, arrow heads and hatching as
// batched triangles by viz/render's rules (Dashes, ArrowHead,
// HatchPeriod), and text from viz/render's own glyph masks (TextGlyphs),
// so the window shows the glyphs the exported PNG has. The screen keeps
// its pixels between frames: a sceneCanvas repaints only the regions where
// a frame's items changed (a hover lights a cell, a wire and a formula),
// the widgets are drawn again only when input or a label changed, and the
// results panel only when its text did. Frames are laid out in logical
// pixels and painted at the monitor's device scale (LayoutF), so HiDPI
// screens get crisp scenes.
//
// # Controls
//
// Natively the window has a sidebar (scene picker, lessons, one field per
// key of the scene with its error in place, the results) and a transport
// bar, built with github.com/ebitenui/ebitenui. In the browser (GOOS=js)
// there are none: the playground's page has them in HTML and talks to the
// frame through its API, and the frame's wasm leaves out the widget
// library and its text shaping (5.6 → 4.1 MB gzip).
//
// A field is one line of text. A program (the src key) shows there with
// "; " between its statements and without its comments
// (viz.ProgramOneLine), which the program language reads the same; the
// program keeps its newlines and comments until the field is typed in,
// and from then on the field's line is the program.
//
// # Platform support
//
// Natively it needs a display (X11 or Wayland; Xvfb under test) and must
// run on the main goroutine. Other goroutines change the app through Post.
package live
