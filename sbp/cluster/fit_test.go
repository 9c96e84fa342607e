package cluster

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
)

// points returns the exact ring times of every collective on n devices
// over link l, at sizes 64 B to 64 MiB (×4), each scaled by noise(i).
func points(l Link, n int, noise func(i int) float64) []Point {
	var out []Point
	for _, c := range []sbp.Collective{sbp.AllGather, sbp.ReduceScatter, sbp.AllReduce, sbp.AllToAll} {
		for s := 64.0; s <= 64<<20; s *= 4 {
			t, _ := l.Time(c, n, s)
			out = append(out, Point{Collective: c, Devices: n, Bytes: s, Seconds: t * noise(len(out))})
		}
	}
	return out
}

// TestFitRecoversTheLink: times made by the formulas give back their α
// and β, with no residual; ±10% noise gives them back within 10%.
func TestFitRecoversTheLink(t *testing.T) {
	want := Link{Alpha: 8e-5, Beta: 2.5e9}
	for _, n := range []int{2, 4, 8} {
		f, err := Fit(points(want, n, func(int) float64 { return 1 }))
		if err != nil {
			t.Fatal(err)
		}
		if !near2(f.Link.Alpha, want.Alpha, 1e-9) || !near2(f.Link.Beta, want.Beta, 1e-9) || f.RMS > 1e-9 {
			t.Errorf("n=%d: Fit(exact) = %+v (RMS %g), want %+v", n, f.Link, f.RMS, want)
		}
		noisy := points(want, n, func(i int) float64 { return 1 + 0.1*math.Sin(float64(7*i)) })
		f, err = Fit(noisy)
		if err != nil {
			t.Fatal(err)
		}
		if !near2(f.Link.Alpha, want.Alpha, 0.1) || !near2(f.Link.Beta, want.Beta, 0.1) || f.RMS > 0.1 {
			t.Errorf("n=%d: Fit(±10%%) = %+v (RMS %g), want within 10%% of %+v", n, f.Link, f.RMS, want)
		}
		for i, p := range noisy {
			if r := (p.Seconds - f.Predicted[i]) / p.Seconds; r != f.Residuals[i] {
				t.Fatalf("residual %d = %g, want (measured − predicted)/measured = %g", i, f.Residuals[i], r)
			}
		}
	}
}

func near2(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestFitRefuses: points that cannot give a link.
func TestFitRefuses(t *testing.T) {
	one := []Point{{sbp.AllGather, 4, 1024, 1e-3}}
	same := []Point{{sbp.AllGather, 4, 1024, 1e-3}, {sbp.AllGather, 4, 1024, 2e-3}}
	shrinking := []Point{{sbp.AllGather, 4, 64, 1e-3}, {sbp.AllGather, 4, 1 << 20, 1e-4}}
	cases := []struct {
		pts  []Point
		want string
	}{
		{nil, "cannot tell α from β"},
		{one, "cannot tell α from β"},
		{same, "cannot tell α from β"},
		{shrinking, "the times do not grow as a ring's do"},
		{[]Point{{sbp.AllGather, 4, 64, 0}, {sbp.AllGather, 4, 128, 1}}, "the time must be positive"},
		{[]Point{{sbp.AllGather, 4, math.NaN(), 1}, {sbp.AllGather, 4, 128, 1}}, "the size >= 0"},
		{[]Point{{"broadcast", 4, 64, 1}, {sbp.AllGather, 4, 128, 1}}, `no time model for the collective "broadcast"`},
	}
	for _, c := range cases {
		_, err := Fit(c.pts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("Fit(%v) = %v, want an error containing %q", c.pts, err, c.want)
		}
	}
}
