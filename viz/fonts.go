package viz

import (
	_ "embed"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The Go fonts are embedded, so every machine measures and draws text the
// same: scenes lay text out with TextWidth and the rasterisers draw it
// with Face; the desktop app's controls draw with the same files
// (FontData). They are subsets of golang.org/x/image/font/gofont's
// (fonts/subset.sh makes them, fonts/LICENSE is theirs): ASCII, Latin-1,
// Latin Extended-A, Greek, General Punctuation, super- and subscripts,
// arrows, mathematical operators, box drawing and every character of
// stridelab's own sources, lessons and gallery, without the hinting
// programs an unhinted face never runs. A character outside the subset
// (Cyrillic, say, or anything outside the Go fonts) draws as the font's
// .notdef box, with its advance.
var (
	//go:embed fonts/Go-Regular.ttf
	goRegular []byte
	//go:embed fonts/Go-Bold.ttf
	goBold []byte
	//go:embed fonts/Go-Mono.ttf
	goMono []byte
)

var fontData = map[Font][]byte{FontRegular: goRegular, FontBold: goBold, FontMono: goMono}

// FontData is the TrueType file of f (Go Regular for an unknown Font),
// the bytes Face draws with; the caller must not modify them.
func FontData(f Font) []byte {
	if data, ok := fontData[f]; ok {
		return data
	}
	return goRegular
}

var (
	fontsOnce sync.Once
	parsed    map[Font]*opentype.Font
	faces     = map[faceKey]font.Face{}
)

// facesMu is the one lock of text: it guards the faces' cache, every call
// into a face (a face is not safe for concurrent use) and whatever a
// renderer caches from the faces (viz/render's glyph cache), so text can
// be measured on one goroutine while a frame is drawn on another.
var facesMu sync.Mutex

// LockFaces takes the lock of text, for a renderer that calls faces and
// keeps what they give (FaceLocked); UnlockFaces releases it. Face,
// TextWidth and Ascent take it themselves.
func LockFaces() { facesMu.Lock() }

// UnlockFaces releases the lock LockFaces took.
func UnlockFaces() { facesMu.Unlock() }

type faceKey struct {
	font Font
	size float64
}

// Face returns the face of f at size pixels per em (72 dpi: one point is
// one pixel), made once and shared. Faces are not safe for concurrent
// use: call them holding LockFaces (FaceLocked), as TextWidth does.
func Face(f Font, size float64) font.Face {
	facesMu.Lock()
	defer facesMu.Unlock()
	return FaceLocked(f, size)
}

// FaceLocked is Face for a caller that holds LockFaces.
func FaceLocked(f Font, size float64) font.Face {
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
	facesMu.Lock()
	defer facesMu.Unlock()
	return fixedToFloat(font.MeasureString(FaceLocked(f, size), s))
}

// Ascent is how far f at size rises above the baseline, in pixels.
func Ascent(f Font, size float64) float64 {
	facesMu.Lock()
	defer facesMu.Unlock()
	return fixedToFloat(FaceLocked(f, size).Metrics().Ascent)
}

func fixedToFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }
