package cluster

import (
	"fmt"
	"math"
)

// The words a report, a scene or a table uses for the model's numbers,
// as tensor.FormatBytes spells bytes: three significant digits and the
// unit that keeps the number between 1 and 1000.

// FormatSeconds spells s in ps, ns, µs, ms or s with three significant
// digits, trailing zeros kept so that a column of times lines up:
// "307 ps", "1.53 ns", "20.0 µs", "112 ms", "2.50 s"; 0 is "0".
func FormatSeconds(s float64) string {
	v, unit := s, "s"
	for _, u := range []struct {
		below, scale float64
		unit         string
	}{{1e-9, 1e12, "ps"}, {1e-6, 1e9, "ns"}, {1e-3, 1e6, "µs"}, {1, 1e3, "ms"}} {
		if math.Abs(s) < u.below {
			v, unit = s*u.scale, u.unit
			break
		}
	}
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case a >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	case a >= 1:
		return fmt.Sprintf("%.2f %s", v, unit)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

// FormatRate spells a bandwidth in bytes per second as MB/s, GB/s or
// TB/s (decimal, as links and memories are quoted), with up to three
// significant digits: "523 MB/s", "50 GB/s", "3.35 TB/s".
func FormatRate(b float64) string {
	switch {
	case b < 1e9:
		return fmt.Sprintf("%.3g MB/s", b/1e6)
	case b < 1e12:
		return fmt.Sprintf("%.3g GB/s", b/1e9)
	}
	return fmt.Sprintf("%.3g TB/s", b/1e12)
}

// FormatFLOPRate spells a peak in FLOP per second as GFLOP/s or
// TFLOP/s, with up to three significant digits: "4.4 GFLOP/s",
// "67 TFLOP/s".
func FormatFLOPRate(f float64) string {
	if f < 1e12 {
		return fmt.Sprintf("%.3g GFLOP/s", f/1e9)
	}
	return fmt.Sprintf("%.3g TFLOP/s", f/1e12)
}

// FormatFLOPs spells a count of FLOPs with a decimal prefix and three
// significant digits: "0 FLOP", "512 FLOP", "32.8 kFLOP", "17.2 GFLOP".
func FormatFLOPs(f float64) string {
	for _, p := range []struct {
		at     float64
		prefix string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if f >= p.at {
			return fmt.Sprintf("%.3g %sFLOP", f/p.at, p.prefix)
		}
	}
	return fmt.Sprintf("%.3g FLOP", f)
}
