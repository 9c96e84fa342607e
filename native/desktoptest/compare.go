// Package desktoptest drives the desktop app (native/cmd/stridelab-desktop)
// as a person would, under Xvfb, and compares what its window shows with
// the headless renderer's picture of the same scene. It imports no
// Ebitengine itself: the app runs as its own process.
package desktoptest

import (
	"fmt"
	"image"
	"image/color"
)

// Diff summarises how two pictures of the same size differ.
type Diff struct {
	Mean float64 // mean absolute difference per channel, 0–255
	Far  float64 // share of pixels where some channel differs by more than 64
}

func (d Diff) String() string {
	return fmt.Sprintf("mean %.2f/255, %.2f%% of pixels far off", d.Mean, 100*d.Far)
}

// Compare compares a (at its origin) with the rect r of b.
func Compare(a image.Image, b image.Image, r image.Rectangle) (Diff, error) {
	if a.Bounds().Dx() != r.Dx() || a.Bounds().Dy() != r.Dy() {
		return Diff{}, fmt.Errorf("sizes differ: %v against %v", a.Bounds().Size(), r.Size())
	}
	var sum float64
	far := 0
	n := r.Dx() * r.Dy()
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			p := color.NRGBAModel.Convert(a.At(a.Bounds().Min.X+x, a.Bounds().Min.Y+y)).(color.NRGBA)
			q := color.NRGBAModel.Convert(b.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA)
			d := []int{abs(int(p.R) - int(q.R)), abs(int(p.G) - int(q.G)), abs(int(p.B) - int(q.B))}
			sum += float64(d[0]+d[1]+d[2]) / 3
			if max(d[0], d[1], d[2]) > 64 {
				far++
			}
		}
	}
	return Diff{Mean: sum / float64(n), Far: float64(far) / float64(n)}, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Closer reports whether d is clearly smaller than other: both its
// measures at most 3/4 of other's (or both near zero).
func (d Diff) Closer(other Diff) bool {
	return d.Mean <= 0.75*other.Mean && d.Far <= 0.75*other.Far+1e-4
}
