package sbp

import (
	"errors"
	"testing"
)

// FuzzParseNd: any string either parses to an nd-SBP whose spelling
// parses back to the same value, or fails with ErrParse; never a panic.
func FuzzParseNd(f *testing.F) {
	for _, s := range []string{"S(0)", "(S(0), B)", "[S(1),P]", "P(max)", "split(3)", "partial_sum", "S(-1)", "((", "S(1),,B", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nd, err := ParseNd(s)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("ParseNd(%q): error %v is not ErrParse", s, err)
			}
			return
		}
		again, err := ParseNd(nd.String())
		if err != nil || !again.Equal(nd) {
			t.Fatalf("ParseNd(%q) = %v, but its spelling reads back as %v, %v", s, nd, again, err)
		}
	})
}

// FuzzParsePlacement: any string either parses to a placement whose
// spelling parses back to the same placement, or fails with ErrParse.
func FuzzParsePlacement(f *testing.F) {
	for _, s := range []string{"2", "0-3", "cpu:0,1,2,3", "cuda:[[0,1],[2,3]]", "[[[0],[1]]]", "[[0,1],[2]]", "3-1", "[", "]", "cpu:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePlacement(s)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("ParsePlacement(%q): error %v is not ErrParse", s, err)
			}
			return
		}
		again, err := ParsePlacement(p.String())
		if err != nil || !again.Equal(p) {
			t.Fatalf("ParsePlacement(%q) = %v, but its spelling reads back as %v, %v", s, p, again, err)
		}
		if p.Size() < 1 || p.Size() > maxDevices {
			t.Fatalf("ParsePlacement(%q) has %d devices", s, p.Size())
		}
	})
}
