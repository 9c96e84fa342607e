// Package chart draws a sweep (package sweep) with gonum/plot: step time
// and each rank's peak memory against the device count, on log axes,
// with the device's memory as a line and each change of the inputs'
// layouts marked. It is apart from package sweep so the browser build
// carries no plotting library.
package chart

import (
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/sweep"
	"github.com/stridelab/stridelab/tensor"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Write draws res to w as format ("svg" or "png"): two panels side by
// side, the step time (its total, compute and communication) and the
// peak held bytes with the device's capacity, both against the devices,
// log-log; a row that was not planned is left out, and a device count
// whose layouts differ from the one before is marked on both panels.
func Write(w io.Writer, format, title string, res *sweep.Result) error {
	var rows []sweep.Row
	for _, r := range res.Rows {
		if r.Error == "" && r.TimeS > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("chart: no device count was planned: nothing to draw")
	}
	timeP, err := panel(title+": step time", "a step", seconds, rows, []series{
		{"total", func(r sweep.Row) float64 { return r.TimeS }},
		{"compute", func(r sweep.Row) float64 { return r.ComputeTimeS }},
		{"communication", func(r sweep.Row) float64 { return r.CommTimeS }},
	})
	if err != nil {
		return err
	}
	memP, err := panel(title+": memory", "on the rank holding the most", bytesTicks, rows, []series{
		{"peak held", func(r sweep.Row) float64 { return float64(r.PeakHeldBytes) }},
		{"device memory", func(r sweep.Row) float64 { return r.CapacityBytes }},
	})
	if err != nil {
		return err
	}
	width, height := 12*vg.Inch, 4.5*vg.Inch
	var c draw.Canvas
	var out io.WriterTo
	switch format {
	case "svg":
		s := vgsvg.New(width, height)
		c, out = draw.New(s), s
	case "png":
		img := vgimg.New(width, height)
		c, out = draw.New(img), vgimg.PngCanvas{Canvas: img}
	default:
		return fmt.Errorf("chart: %q: draw svg or png", format)
	}
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	timeP.Draw(tiles.At(c, 0, 0))
	memP.Draw(tiles.At(c, 1, 0))
	_, err = out.WriteTo(w)
	return err
}

// Format is the format a plot's path asks for: its extension, svg or
// png.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", fmt.Errorf("--plot %s: write a .svg or a .png", path)
}

type series struct {
	name string
	of   func(sweep.Row) float64
}

// panel is one log-log plot of series against the rows' devices, with
// the layout changes marked as dashed verticals named by what changed;
// its y ticks are yTicks', its x ticks the device counts.
func panel(title, ylabel string, yTicks plot.TickerFunc, rows []sweep.Row, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "devices"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = deviceTicks(rows), yTicks
	p.Legend.Top, p.Legend.Left = true, false // top right: the layout changes' names sit top left, where the devices are few
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), -vg.Points(2)
	colours := []color.Color{color.RGBA{31, 119, 180, 255}, color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255}}
	lo, hi := 0.0, 0.0
	for i, s := range ss {
		xys := plotter.XYs{}
		for _, r := range rows {
			if v := s.of(r); v > 0 {
				xys = append(xys, plotter.XY{X: float64(r.Devices), Y: v})
				if lo == 0 || v < lo {
					lo = v
				}
				hi = max(hi, v)
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		line.Color, points.Color = colours[i%len(colours)], colours[i%len(colours)]
		line.Width = vg.Points(1.5)
		if s.name == "device memory" {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	// room above the lines for the legend: a decade and a half on the log axis
	p.Y.Min, p.Y.Max = lo/1.5, hi*6
	for i := 1; i < len(rows); i++ {
		if changed := layoutChange(rows[i-1], rows[i]); changed != "" && lo > 0 {
			x, top := float64(rows[i].Devices), hi*2.5 // in the room kept above the lines
			mark, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: top}})
			if err != nil {
				return nil, fmt.Errorf("chart: %w", err)
			}
			mark.Color, mark.Dashes = color.Gray{Y: 140}, []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(mark)
			labels, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: x, Y: top}}, Labels: []string{changed}})
			if err == nil {
				p.Add(labels)
			}
		}
	}
	return p, nil
}

// deviceTicks marks each swept device count.
func deviceTicks(rows []sweep.Row) plot.TickerFunc {
	return func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for _, r := range rows {
			ts = append(ts, plot.Tick{Value: float64(r.Devices), Label: strconv.Itoa(r.Devices)})
		}
		return ts
	}
}

// seconds ticks a time axis at 1, 2 and 5 of each decade, spelled as the
// reports spell times (cluster.FormatSeconds: 5.00 ms).
func seconds(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := d * m; v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: cluster.FormatSeconds(v)})
			}
		}
	}
	return ts
}

// bytesTicks ticks a bytes axis at powers of 4 (1 GiB, 4 GiB, 16 GiB…),
// spelled as tensor.FormatBytes spells them.
func bytesTicks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := math.Pow(4, math.Floor(math.Log(lo)/math.Log(4))); v <= hi; v *= 4 {
		if v >= lo {
			ts = append(ts, plot.Tick{Value: v, Label: tensor.FormatBytes(int64(v))})
		}
	}
	return ts
}

// layoutChange names what changed in the inputs' layouts from a to b:
// the new scheme where it has another name ("→ tensor parallel"), else
// "w: B → S(1)" (the first such input, and how many more), or "".
func layoutChange(a, b sweep.Row) string {
	if a.Scheme != b.Scheme && b.Scheme != "" && a.Scheme != "one device" {
		return "→ " + b.Scheme
	}
	var changed []string
	for _, name := range slices.Sorted(maps.Keys(b.Layouts)) {
		if a.Layouts[name] != b.Layouts[name] {
			changed = append(changed, fmt.Sprintf("%s: %s → %s", name, a.Layouts[name], b.Layouts[name]))
		}
	}
	switch len(changed) {
	case 0:
		return ""
	case 1:
		return changed[0]
	}
	return fmt.Sprintf("%s and %d more", changed[0], len(changed)-1)
}
