package viz

import (
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The Go fonts are embedded (golang.org/x/image/font/gofont), so every
// machine measures and draws text the same: scenes lay text out with
// TextWidth and the rasterisers draw it with Face.

var fontData = map[Font][]byte{FontRegular: goregular.TTF, FontBold: gobold.TTF, FontMono: gomono.TTF}

var (
	fontsOnce sync.Once
	parsed    map[Font]*opentype.Font
	facesMu   sync.Mutex
	faces     = map[faceKey]font.Face{}
)

type faceKey struct {
	font Font
	size float64
}

// Face returns the face of f at size pixels per em (72 dpi: one point is
// one pixel), made once and shared. Faces are not safe for concurrent
// use; callers draw on one goroutine.
func Face(f Font, size float64) font.Face {
	fontsOnce.Do(func() {
		parsed = map[Font]*opentype.Font{}
		for k, data := range fontData {
			p, err := opentype.Parse(data)
			if err != nil {
				panic("viz: the embedded Go font does not parse: " + err.Error())
			}
			parsed[k] = p
		}
	})
	if _, ok := fontData[f]; !ok {
		f = FontRegular // an unknown Font draws as Go Regular
	}
	facesMu.Lock()
	defer facesMu.Unlock()
	k := faceKey{f, size}
	if face, ok := faces[k]; ok {
		return face
	}
	face, err := opentype.NewFace(parsed[f], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("viz: a face of the embedded Go font: " + err.Error())
	}
	faces[k] = face
	return face
}

// TextWidth is the advance of s in f at size, in pixels.
func TextWidth(s string, f Font, size float64) float64 {
	face := Face(f, size)
	facesMu.Lock()
	defer facesMu.Unlock()
	return fixedToFloat(font.MeasureString(face, s))
}

// Ascent is how far f at size rises above the baseline, in pixels.
func Ascent(f Font, size float64) float64 {
	face := Face(f, size)
	facesMu.Lock()
	defer facesMu.Unlock()
	return fixedToFloat(face.Metrics().Ascent)
}

func fixedToFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }
