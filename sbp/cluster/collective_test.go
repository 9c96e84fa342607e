package cluster

import (
	"errors"
	"math"
	"testing"

	"github.com/stridelab/stridelab/sbp"
)

// near reports whether got and want agree to 1e-12 relative: the
// formulas below are written out by hand, in another order of
// operations than the code's.
func near(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(got), math.Abs(want))
}

// TestCollectiveTimes: every collective's time against its formula
// written out by hand, for 2, 4 and 8 devices, on a link of α = 10 µs
// and β = 50 GB/s, for S = 1 MiB.
func TestCollectiveTimes(t *testing.T) {
	const a, b, S = 1e-5, 5e10, 1 << 20
	l := Link{Alpha: a, Beta: b}
	cases := []struct {
		c    sbp.Collective
		n    int
		want float64
	}{
		// all-gather and reduce-scatter: (n−1)·α + (n−1)/n·S/β
		{sbp.AllGather, 2, 1*a + S/2/b},
		{sbp.AllGather, 4, 3*a + 3*S/4/b},
		{sbp.AllGather, 8, 7*a + 7*S/8/b},
		{sbp.ReduceScatter, 2, 1*a + S/2/b},
		{sbp.ReduceScatter, 4, 3*a + 3*S/4/b},
		{sbp.ReduceScatter, 8, 7*a + 7*S/8/b},
		// all-reduce: twice that
		{sbp.AllReduce, 2, 2*a + S/b},
		{sbp.AllReduce, 4, 6*a + 6*S/4/b},
		{sbp.AllReduce, 8, 14*a + 14*S/8/b},
		// all-to-all: (n−1)·α + (n−1)/n²·S/β
		{sbp.AllToAll, 2, 1*a + S/4/b},
		{sbp.AllToAll, 4, 3*a + 3*S/16/b},
		{sbp.AllToAll, 8, 7*a + 7*S/64/b},
		// local steps move nothing
		{sbp.LocalSlice, 4, 0},
		{sbp.LocalZero, 4, 0},
		{sbp.LocalPad, 8, 0},
		// a group of one device calls nothing
		{sbp.AllReduce, 1, 0},
		{sbp.AllToAll, 1, 0},
	}
	for _, c := range cases {
		got, err := l.Time(c.c, c.n, S)
		if err != nil {
			t.Errorf("%s on %d devices: %v", c.c, c.n, err)
			continue
		}
		if !near(got, c.want) {
			t.Errorf("%s on %d devices of 1 MiB: got %g s, want %g s", c.c, c.n, got, c.want)
		}
	}
}

// TestCollectiveTimeRefuses: an unknown collective, no devices, and a
// size that is negative or not finite are errors, not numbers.
func TestCollectiveTimeRefuses(t *testing.T) {
	l := Link{Alpha: 1e-5, Beta: 5e10}
	cases := []struct {
		c    sbp.Collective
		n    int
		s    float64
		want string
	}{
		{"broadcast", 4, 1, `cluster: no time model for the collective "broadcast"`},
		{sbp.AllGather, 0, 1, "cluster: all-gather on 0 devices: a group has at least 1"},
		{sbp.AllGather, -3, 1, "cluster: all-gather on -3 devices: a group has at least 1"},
		{sbp.AllReduce, 4, -1, "cluster: all-reduce of -1 bytes: the size must be finite and >= 0"},
		{sbp.AllReduce, 4, math.NaN(), "cluster: all-reduce of NaN bytes: the size must be finite and >= 0"},
		{sbp.AllReduce, 4, math.Inf(1), "cluster: all-reduce of +Inf bytes: the size must be finite and >= 0"},
	}
	for _, c := range cases {
		_, err := l.Time(c.c, c.n, c.s)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrUnsupported) {
			t.Errorf("Time(%s, %d, %v) = %v, want %q wrapping ErrUnsupported", c.c, c.n, c.s, err, c.want)
		}
	}
}
