package torch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
)

// TestCalibrate runs a small calibration on 2 processes (three sizes,
// two runs each) and checks its shape, not its numbers: every collective
// at every size, positive times, the slowest rank's run as each run's
// time, progress heard up to the end, and a cluster that validates,
// whose link carries each collective's own fit.
func TestCalibrate(t *testing.T) {
	py := needTorch(t)
	p, _ := sbp.ParsePlacement("2")
	var mu sync.Mutex
	var last, total int
	cal, err := Calibrate(context.Background(), CalibrateOptions{Python: py, Placement: p, Sizes: []int64{64, 4096, 256 << 10}, Runs: 2,
		Progress: func(done, of int) { mu.Lock(); last, total = done, of; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Measurements) != len(Collectives)*3 {
		t.Fatalf("%d measurements, want %d", len(cal.Measurements), len(Collectives)*3)
	}
	for i, m := range cal.Measurements {
		want := Collectives[i/3]
		if m.Collective != want || m.Devices != 2 || m.MeshDim != 0 || len(m.Runs) != 2 || !(m.Seconds > 0) {
			t.Errorf("measurement %d: %+v, want %s on 2 devices with 2 positive runs", i, m, want)
		}
		if m.Seconds != (m.Runs[0]+m.Runs[1])/2 {
			t.Errorf("measurement %d: %g is not the median of %v", i, m.Seconds, m.Runs)
		}
	}
	if got := cal.Measurements[2].Bytes; got != 256<<10 {
		t.Errorf("the third size measured %g bytes, want %d", got, 256<<10)
	}
	mu.Lock()
	if total != len(Collectives)*3+1 || last != total {
		t.Errorf("progress ended at %d of %d, want %d of %d", last, total, len(Collectives)*3+1, len(Collectives)*3+1)
	}
	mu.Unlock()
	if d := cal.Device; !(d.FLOPs > 0 && d.MemBytes > 0 && d.MemCapacity > 0) {
		t.Errorf("device %+v: every number must be positive", d)
	}
	// The fit may fail on a busy machine (three sizes, two runs); when it
	// gives a cluster, that cluster is valid and has one link.
	c, fits, err := cal.Fit("loopback")
	if err != nil {
		if !errors.Is(err, cluster.ErrUnsupported) {
			t.Fatal(err)
		}
		t.Logf("the fit failed on this run's noise: %v", err)
		return
	}
	if err := c.Validate(); err != nil || len(c.Links) != 1 || len(fits) != 1 || len(fits[0].Each) != len(Collectives) {
		t.Fatalf("Fit = %+v, %d fits, %v", c, len(fits), err)
	}
	// The link is the fit over every collective; each collective whose
	// own fit succeeded carries it as its own α and β.
	l := c.Links[0]
	if l.Alpha != fits[0].All.Link.Alpha || l.Beta != fits[0].All.Link.Beta {
		t.Errorf("link %+v, want the fit over every collective %+v", l, fits[0].All.Link)
	}
	for _, e := range fits[0].Each {
		own, ok := l.Own(e.Collective)
		if ok != (e.Err == nil) || (ok && (own.Alpha != e.Fitted.Link.Alpha || own.Beta != e.Fitted.Link.Beta)) {
			t.Errorf("%s: own %+v (%v), want its own fit %+v (err %v)", e.Collective, own, ok, e.Fitted.Link, e.Err)
		}
	}
}

// TestCalibrateRefuses: what is refused before any process starts.
func TestCalibrateRefuses(t *testing.T) {
	one, _ := sbp.ParsePlacement("1")
	mesh, _ := sbp.ParsePlacement("[[0],[1]]")
	two, _ := sbp.ParsePlacement("2")
	cases := []struct {
		opts CalibrateOptions
		want string
	}{
		{CalibrateOptions{}, "no placement"},
		{CalibrateOptions{Placement: one}, "mesh dim 0 has 1 device; a collective needs 2 or more"},
		{CalibrateOptions{Placement: mesh}, "mesh dim 1 has 1 device"},
		{CalibrateOptions{Placement: two, Sizes: []int64{64}}, "1 sizes; a fit needs 2 or more"},
		{CalibrateOptions{Placement: two, Sizes: []int64{0, 64}}, "size 0 bytes: give sizes from 1 B to 1 GiB"},
		{CalibrateOptions{Placement: two, Sizes: []int64{64, 1 << 62}}, "size 4611686018427387904 bytes: give sizes from 1 B to 1 GiB"},
		{CalibrateOptions{Placement: two, Runs: -1}, "-1 runs; give 1 or more"},
		{CalibrateOptions{Placement: func() sbp.Placement { p, _ := sbp.ParsePlacement("4096"); return p }(), Sizes: []int64{64, 1 << 30}}, "the limit is"},
	}
	for _, c := range cases {
		_, err := Calibrate(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Calibrate(%+v) = %v, want %q", c.opts, err, c.want)
		}
	}
}

func TestProgressOf(t *testing.T) {
	for _, c := range []struct {
		in          string
		done, total int
		ok          bool
	}{
		{"measure 3/45: all-gather of 64 B along mesh dim 0", 3, 45, true},
		{"measure 45/45: this device's matmul and copy", 45, 45, true},
		{"init: joining", 0, 0, false},
		{"measure x/4: …", 0, 0, false},
	} {
		d, n, ok := progressOf(c.in)
		if d != c.done || n != c.total || ok != c.ok {
			t.Errorf("progressOf(%q) = %d, %d, %v", c.in, d, n, ok)
		}
	}
}
