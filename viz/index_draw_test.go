package viz

import (
	"fmt"
	"testing"
)

// TestStripElidesOnlyWhatCannotFit: an index scene's storage strip draws
// every element that fits at a cell labelled at MinText, as the grid
// above it draws every cell at a smaller size, and elides only the rest:
// on a phone, expand's example (x 4×1×3, 12 elements) draws all 12, each
// labelled; a storage of 1000 elements is elided, its drawn cells still
// labelled at MinText or more.
func TestStripElidesOnlyWhatCannotFit(t *testing.T) {
	for _, c := range []struct {
		shape, size string
		w, h        float64 // the viewport, CSS px
		n           int     // the storage's elements
		all         bool    // every element drawn, no gap
	}{
		{"4,1,3", "4,2,3", 390, 844, 12, true},
		{"4,1,3", "4,2,3", 390, 600, 12, true},
		{"4,1,3", "4,2,3", 320, 480, 12, true},
		{"4,1,3", "4,2,3", 1280, 720, 12, true},
		{"10,1,100", "10,2,100", 390, 844, 1000, false},
	} {
		s, err := Build(example("expand", "shape", c.shape, "size", c.size))
		if err != nil {
			t.Fatal(err)
		}
		sz := FitViewport(c.w, c.h).Size
		for _, step := range []int{0, s.Steps / 2, s.Steps - 1} {
			where := fmt.Sprintf("expand %s to %s at %.0f×%.0f, step %d", c.shape, c.size, c.w, c.h, step)
			f, err := s.Frame(step, sz)
			if err != nil {
				t.Fatal(err)
			}
			hots, err := s.Hots(step, sz)
			if err != nil {
				t.Fatal(err)
			}
			drawn := map[int]bool{}
			for _, h := range hots {
				if h.Focus.Kind != FocusStorage {
					continue
				}
				drawn[h.Focus.Offset] = true
				label := fmt.Sprint(h.Focus.Offset)
				if !labelIn(f, label, h) {
					t.Errorf("%s: storage cell %s (%.1f px wide) has no label at MinText or more", where, label, h.W)
				}
			}
			gaps := 0
			for _, it := range f.Items {
				if x, ok := it.(Text); ok && x.S == "…" {
					gaps++
				}
			}
			if c.all && (len(drawn) != c.n || gaps != 0) {
				t.Errorf("%s: the strip draws %d of %d elements and %d gaps, want all and none", where, len(drawn), c.n, gaps)
			}
			if !c.all && (len(drawn) >= c.n || gaps == 0) {
				t.Errorf("%s: the strip draws %d of %d elements and %d gaps, want some elided", where, len(drawn), c.n, gaps)
			}
		}
	}
}

// labelIn reports whether frame f writes s inside h's box at MinText or
// more.
func labelIn(f Frame, s string, h Hot) bool {
	for _, it := range f.Items {
		x, ok := it.(Text)
		if ok && x.S == s && x.Size >= MinText && x.X > h.X && x.X < h.X+h.W && x.Y > h.Y && x.Y < h.Y+h.H {
			return true
		}
	}
	return false
}
