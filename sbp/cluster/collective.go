package cluster

import (
	"math"

	"github.com/stridelab/stridelab/sbp"
)

// Terms are a collective's ring cost on n devices as two coefficients:
//
//	T = Steps·α + Fraction·S/β
//
// Steps is the number of α-latency steps its algorithm takes; Fraction
// the share of the group's tensor (S bytes) that each device sends over
// its link. Calibrate fits α and β to measured times through the same
// terms.
type Terms struct {
	Steps    float64
	Fraction float64
}

// ringTerms is the one table of formulas: one row per collective, n the
// devices along the mesh dim (n >= 1).
var ringTerms = map[sbp.Collective]func(n float64) Terms{
	// A ring all-gather: n−1 steps, in each every device passes on one
	// shard of S/n bytes, so (n−1)/n of S leaves each device.
	sbp.AllGather: func(n float64) Terms { return Terms{n - 1, (n - 1) / n} },
	// A ring reduce-scatter: the all-gather's steps and bytes, reducing
	// each shard as it passes.
	sbp.ReduceScatter: func(n float64) Terms { return Terms{n - 1, (n - 1) / n} },
	// A ring all-reduce: a reduce-scatter, then an all-gather.
	sbp.AllReduce: func(n float64) Terms { return Terms{2 * (n - 1), 2 * (n - 1) / n} },
	// An all-to-all in n−1 steps: in step k every device sends the piece
	// of its S/n shard that belongs to the device k along, S/n² bytes.
	sbp.AllToAll: func(n float64) Terms { return Terms{n - 1, (n - 1) / (n * n)} },
	// Local steps move nothing.
	sbp.LocalSlice: func(float64) Terms { return Terms{} },
	sbp.LocalZero:  func(float64) Terms { return Terms{} },
	sbp.LocalPad:   func(float64) Terms { return Terms{} },
}

// RingTerms returns the terms of collective c on a ring of n devices:
//
//	all-gather       (n−1)·α + (n−1)/n · S/β
//	reduce-scatter   (n−1)·α + (n−1)/n · S/β
//	all-reduce       2·(n−1)·α + 2·(n−1)/n · S/β
//	all-to-all       (n−1)·α + (n−1)/n² · S/β
//	local-*          0
//
// A group of one device (n = 1) costs nothing. An unknown collective or
// n < 1 is an error wrapping ErrUnsupported.
func RingTerms(c sbp.Collective, n int) (Terms, error) {
	f, ok := ringTerms[c]
	if !ok {
		return Terms{}, newError(ErrUnsupported, "", "", "no time model for the collective %q", c)
	}
	if n < 1 {
		return Terms{}, newError(ErrUnsupported, "", "", "%s on %d devices: a group has at least 1", c, n)
	}
	return f(float64(n)), nil
}

// Time is T = Steps·α + Fraction·s/β on link l, in seconds, for a group
// tensor of s bytes.
func (t Terms) Time(l Link, s float64) float64 { return t.Steps*l.Alpha + t.Fraction*s/l.Beta }

// Time returns the seconds collective c takes along link l on a ring of
// n devices, for a group tensor of s bytes (RingTerms gives the
// formulas), at the α and β l has for c (Link.For: its own where l
// carries them, else the link's). s must be finite and >= 0.
func (l Link) Time(c sbp.Collective, n int, s float64) (float64, error) {
	t, err := RingTerms(c, n)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return 0, newError(ErrUnsupported, "", "", "%s of %v bytes: the size must be finite and >= 0", c, s)
	}
	alpha, beta := l.For(c)
	return t.Time(Link{Alpha: alpha, Beta: beta}, s), nil
}
