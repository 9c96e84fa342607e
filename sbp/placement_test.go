package sbp

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParsePlacement(t *testing.T) {
	for _, c := range []struct {
		in, want  string
		hierarchy []int
	}{
		{"2", "cpu:[0, 1]", []int{2}},
		{"0-3", "cpu:[0, 1, 2, 3]", []int{4}},
		{"cpu:0,1,2,3", "cpu:[0, 1, 2, 3]", []int{4}},
		{"cuda:4-5,0", "cuda:[4, 5, 0]", []int{3}},
		{"[2]", "cpu:[2]", []int{1}},
		{"[[0,1],[2,3]]", "cpu:[[0, 1], [2, 3]]", []int{2, 2}},
		{"cuda: [[0, 1, 2], [3, 4, 5]]", "cuda:[[0, 1, 2], [3, 4, 5]]", []int{2, 3}},
		{"[[[0],[1]],[[2],[3]]]", "cpu:[[[0], [1]], [[2], [3]]]", []int{2, 2, 1}},
	} {
		p, err := ParsePlacement(c.in)
		if err != nil || p.String() != c.want || fmt.Sprint(p.Hierarchy()) != fmt.Sprint(c.hierarchy) {
			t.Errorf("ParsePlacement(%q) = %v (mesh %v), %v; want %s (mesh %v)", c.in, p, p.Hierarchy(), err, c.want, c.hierarchy)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"", "no ranks"}, {"0", "0 devices"}, {"-2", "-2 devices"}, {"tpu:2", "device type"},
		{"3-1", "backwards"}, {"0,0", "appears twice"}, {"[[0,1],[2]]", "rectangular"},
		{"[[0,1],2]", "rectangular"}, {"[0,[1]]", "rectangular"}, {"[[0,1]", "missing ]"}, {"[0,1]]", "after the mesh"},
		{"99999", "devices"}, {"0-99999", "more than"}, {"a", "not a whole number"}, {"[]", "not a whole number"},
	} {
		_, err := ParsePlacement(c.in)
		if err == nil || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParsePlacement(%q): error %v, want ErrParse saying %q", c.in, err, c.says)
		}
	}
}

func TestPlacementMesh(t *testing.T) {
	p, _ := ParsePlacement("[[0,1,2],[3,4,5]]")
	if got := fmt.Sprint(p.Coord(4)); got != "[1 1]" {
		t.Errorf("Coord(4) = %s, want [1 1]", got)
	}
	if got := fmt.Sprint(p.Groups(0), p.Groups(1)); got != "[[0 3] [1 4] [2 5]] [[0 1 2] [3 4 5]]" {
		t.Errorf("groups along mesh dims 0 and 1 = %s", got)
	}
}
