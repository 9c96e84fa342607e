package viz

import "math"

// Colours. Devices take the Okabe–Ito colour-blind-safe palette in a fixed
// order (rank 0 is always orange), and every device cell also carries its
// rank as text, so colour never carries meaning alone.

var (
	Paper     = RGB(255, 255, 255) // the background
	Ink       = RGB(33, 37, 41)    // text and outlines
	Muted     = RGB(108, 117, 125) // secondary text, elision marks
	Faint     = RGB(222, 226, 230) // cell outlines, empty cells
	CellFill  = RGB(248, 249, 250) // an unselected cell
	Highlight = RGB(255, 209, 102) // the selected cell
	Reader    = RGB(255, 236, 179) // cells that read the selected storage cell
	Path      = RGB(214, 40, 57)   // the arrow from a cell to what it reads
	Broadcast = RGB(0, 114, 178)   // stride-0 dims and their labels
	// A step's time on a cluster: Okabe–Ito's blue for compute and its
	// vermillion for communication, a pair told apart in every kind of
	// colour blindness; communication is hatched as well, so that the
	// two marks differ without colour.
	ComputeInk = RGB(0, 114, 178)
	CommInk    = RGB(213, 94, 0)
)

// okabeIto is the Okabe–Ito palette less black, in its usual order.
var okabeIto = []Color{
	RGB(230, 159, 0),   // orange
	RGB(86, 180, 233),  // sky blue
	RGB(0, 158, 115),   // bluish green
	RGB(240, 228, 66),  // yellow
	RGB(0, 114, 178),   // blue
	RGB(213, 94, 0),    // vermillion
	RGB(204, 121, 167), // reddish purple
	RGB(153, 153, 153), // grey
}

// DeviceColor is the colour of the device at position i of a placement;
// past eight the colours repeat and the rank label tells them apart.
func DeviceColor(i int) Color { return okabeIto[i%len(okabeIto)] }

// Tint mixes c with white: t = 0 is c, t = 1 is white.
func Tint(c Color, t float64) Color {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*t + 0.5) }
	return Color{mix(c.R), mix(c.G), mix(c.B), c.A}
}

// TextOn returns Ink or Paper, whichever contrasts more with bg (WCAG
// relative luminance), so labels stay readable on any fill.
func TextOn(bg Color) Color {
	if luminance(bg) > 0.179 {
		return Ink
	}
	return Paper
}

func luminance(c Color) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}
