package viz

import (
	"fmt"
	"runtime"
	"testing"
)

// viewports are the frames a scene is laid out for: phones in portrait
// and landscape, tablets, laptops, a slide and a projector's (after
// FitViewport).
var viewports = []Size{{320, 480}, {344, 560}, {374, 640}, {760, 340}, {720, 900}, {1000, 560}, {1280, 720}}

// TestNoTextUnderMinText: at every viewport, every step of every gallery
// scene draws no text under MinText, and no text runs past the frame's
// sides (a text that does not fit is wrapped, cut short or left out).
func TestNoTextUnderMinText(t *testing.T) {
	sizes := viewports
	if runtime.GOOS == "js" { // make test-wasm: the smallest, a phone turned and a laptop, in the browser's runtime
		sizes = []Size{viewports[0], viewports[3], viewports[6]}
	}
	for _, spec := range describeSpecs() {
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for _, sz := range sizes {
			for _, step := range []int{0, s.Steps / 2, s.Steps - 1} {
				for _, hide := range []bool{false, true} {
					f, err := s.FrameLook(step, sz, Look{HideAnswers: hide})
					if err != nil {
						t.Fatal(err)
					}
					where := fmt.Sprintf("%s at %d×%d, step %d (hide %v)", spec, sz.W, sz.H, step, hide)
					checkText(t, where, f)
				}
			}
		}
	}
}

func checkText(t *testing.T, where string, f Frame) {
	t.Helper()
	for _, it := range f.Items {
		x, ok := it.(Text)
		if !ok || x.S == "" {
			continue
		}
		if x.Size < MinText {
			t.Errorf("%s: %q drawn at %.1f px, under MinText", where, x.S, x.Size)
		}
		w := TextWidth(x.S, x.Font, x.Size)
		left := x.X
		switch x.Anchor {
		case AnchorMiddle:
			left -= w / 2
		case AnchorEnd:
			left -= w
		}
		if left < -0.5 || left+w > float64(f.W)+0.5 {
			t.Errorf("%s: %q runs past the frame's sides (x %.0f to %.0f of %d)", where, x.S, left, left+w, f.W)
		}
	}
}

// TestFitViewport: frames up to a slide are laid out at their own size
// and drawn at scale 1; larger ones at the slide-sized part, drawn larger.
func TestFitViewport(t *testing.T) {
	for _, c := range []struct {
		w, h float64
		want Fitting
	}{
		{370, 600, Fitting{Size{370, 600}, 1}},
		{1280, 720, Fitting{Size{1280, 720}, 1}},
		{1900, 900, Fitting{Size{1520, 720}, 1.25}},
		{2560, 1440, Fitting{Size{1280, 720}, 2}},
		{200, 100, Fitting{MinSize, 1}},
	} {
		if got := FitViewport(c.w, c.h); got != c.want {
			t.Errorf("FitViewport(%v, %v) = %+v, want %+v", c.w, c.h, got, c.want)
		}
	}
}
