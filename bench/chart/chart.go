// Package chart draws benchmark results as SVG for the README. It is
// apart from package bench so the browser build, which runs the
// benchmark, does not carry a plotting library and its fonts.
package chart

import (
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/bench"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WriteChart draws results as an SVG bar chart: per case, the kernel's
// GB/s beside the device's copy kernel and copyBufferToBuffer, measured
// in the same run, for the README.
func Write(w io.Writer, title string, results []bench.DeviceResult) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "GB/s (bytes read + written)"
	series := []struct {
		name string
		gbps func(bench.DeviceResult) float64
	}{
		{"kernel", func(r bench.DeviceResult) float64 { return r.KernelGBps }},
		{"vec4 copy kernel", func(r bench.DeviceResult) float64 { return r.CopyGBps }},
		{"copyBufferToBuffer", func(r bench.DeviceResult) float64 { return r.BufferGBps }},
	}
	width := vg.Points(16)
	for i, s := range series {
		vals := make(plotter.Values, len(results))
		for j, r := range results {
			vals[j] = s.gbps(r)
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = vg.Length(i-1) * width
		p.Add(bars)
		p.Legend.Add(s.name, bars)
	}
	p.Legend.Top = true
	names := make([]string, len(results))
	for i, r := range results {
		names[i] = shortName(r.Case)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.35
	p.X.Tick.Label.XAlign = -0.9
	wt, err := p.WriterTo(11*vg.Inch, 5*vg.Inch, "svg")
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// shortName keeps a case's op and input shape: "expand [1024,1,4096]".
func shortName(name string) string {
	if i := strings.Index(name, "]"); i >= 0 {
		return name[:i+1]
	}
	return name
}
