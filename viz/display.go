package viz

// The display list: what a renderer draws. A scene turns its state at a
// step into a Frame, a flat list of rectangles, lines and text in pixel
// coordinates; every renderer (SVG, PNG, GIF, the live window) draws the
// same Frame, so they cannot tell different stories.

// Color is an sRGB colour with straight (not premultiplied) alpha.
type Color struct{ R, G, B, A uint8 }

// Visible reports whether the colour paints anything.
func (c Color) Visible() bool { return c.A > 0 }

// RGB returns an opaque colour.
func RGB(r, g, b uint8) Color { return Color{r, g, b, 255} }

// Anchor is where a Text's X lies on the text.
type Anchor uint8

const (
	AnchorStart  Anchor = iota // X is the left end
	AnchorMiddle               // X is the centre
	AnchorEnd                  // X is the right end
)

// Font is one of the embedded Go fonts.
type Font uint8

const (
	FontRegular Font = iota // Go Regular
	FontBold                // Go Bold
	FontMono                // Go Mono, for numbers in cells and formulas
)

// Item is a Rect, Line or Text.
type Item interface{ item() }

// Rect is an axis-aligned rectangle at (X, Y) (top left) of size W×H.
type Rect struct {
	X, Y, W, H  float64
	Fill        Color   // no fill when invisible
	Stroke      Color   // no outline when invisible
	StrokeWidth float64 // outline width in pixels
	// Hatch draws diagonal lines in Stroke's colour across the fill: the
	// mark of a partial value, so colour never carries that alone.
	Hatch bool
	// Dash draws the outline dashed (an elided or ghost cell).
	Dash bool
}

// Line is a straight segment from (X1, Y1) to (X2, Y2).
type Line struct {
	X1, Y1, X2, Y2 float64
	Color          Color
	Width          float64
	Arrow          bool // an arrow head at (X2, Y2)
	Dash           bool
}

// Text is one line of text whose baseline starts, centres or ends at
// (X, Y) as Anchor says.
type Text struct {
	X, Y   float64
	S      string
	Size   float64 // pixels per em
	Color  Color
	Anchor Anchor
	Font   Font
}

func (Rect) item() {}
func (Line) item() {}
func (Text) item() {}

// Frame is one picture: its size in pixels, a background and the items,
// painted in order.
type Frame struct {
	W, H       int
	Background Color
	Items      []Item
}
