package chart

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/sweep"
)

// TestWrite: a sweep draws as SVG and as a PNG that decodes, a layout
// change marked by name; a sweep with no planned row is refused.
func TestWrite(t *testing.T) {
	res := &sweep.Result{Rows: []sweep.Row{
		{Devices: 1, TimeS: 0.06, ComputeTimeS: 0.06, PeakHeldBytes: 16 << 30, CapacityBytes: 8e10, Layouts: map[string]string{"w": "B"}},
		{Devices: 8, TimeS: 0.015, ComputeTimeS: 0.008, CommTimeS: 0.007, PeakHeldBytes: 4 << 30, CapacityBytes: 8e10, Layouts: map[string]string{"w": "S(1)"}},
		{Devices: 2048, Error: "too many"},
	}}
	var svg, img bytes.Buffer
	if err := Write(&svg, "svg", "gpt", res); err != nil || !strings.Contains(svg.String(), "w: B → S(1)") {
		t.Fatalf("svg: %v; marks the change: %v", err, strings.Contains(svg.String(), "w: B → S(1)"))
	}
	if err := Write(&img, "png", "gpt", res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&img); err != nil {
		t.Fatal(err)
	}
	if err := Write(&svg, "svg", "none", &sweep.Result{Rows: []sweep.Row{{Devices: 4, Error: "x"}}}); err == nil || !strings.Contains(err.Error(), "no device count was planned") {
		t.Errorf("an empty sweep: %v", err)
	}
	if f, err := Format("out.PNG"); err != nil || f != "png" {
		t.Errorf("Format(out.PNG) = %q, %v", f, err)
	}
}
