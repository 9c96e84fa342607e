package live

import (
	"fmt"
	"image"
	"io"
	"slices"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

// screenImage reads the screen's pixels back.
func screenImage(screen *ebiten.Image, b image.Rectangle) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	screen.ReadPixels(img.Pix)
	return img
}

// reportFPS prints the frame rate a run measured: the median and the 5th
// percentile (the slow frames), from the times between frames (the first
// second is left out: start-up, font atlases, the first paint).
func reportFPS(w io.Writer, times []time.Duration) {
	var skip time.Duration
	i := 0
	for ; i < len(times) && skip < time.Second; i++ {
		skip += times[i]
	}
	ts := slices.Clone(times[i:])
	if len(ts) == 0 {
		fmt.Fprintln(w, "fps: no frames measured (run longer than a second)")
		return
	}
	slices.Sort(ts)
	median := ts[len(ts)/2]
	p95 := ts[min(len(ts)-1, len(ts)*95/100)] // the 95th percentile frame time is the 5th percentile rate
	fmt.Fprintf(w, "fps: %d frames; median %.1f fps (%.2f ms a frame); 5th percentile %.1f fps (%.2f ms)\n",
		len(ts), 1/median.Seconds(), ms(median), 1/p95.Seconds(), ms(p95))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
