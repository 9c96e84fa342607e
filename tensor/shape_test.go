package tensor

import (
	"slices"
	"testing"
)

func TestUnravel(t *testing.T) {
	s := Shape{2, 3, 4}
	n := 0
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				if got := s.Unravel(n); !slices.Equal(got, []int{i, j, k}) {
					t.Errorf("%v.Unravel(%d) = %v, want [%d %d %d]", s, n, got, i, j, k)
				}
				n++
			}
		}
	}
	if got := (Shape{}).Unravel(0); len(got) != 0 {
		t.Errorf("a scalar's Unravel(0) = %v, want []", got)
	}
}

// Spell is the spelling ParseShape (and ParseInts) reads back: the
// scalar as (), which a flag parser does not take for a missing value.
func TestSpell(t *testing.T) {
	for _, c := range []struct {
		shape Shape
		want  string
	}{
		{Shape{}, "()"},
		{nil, "()"},
		{Shape{5}, "5"},
		{Shape{0}, "0"},
		{Shape{4, 2, 3}, "4,2,3"},
		{Shape{1, 1, 1, 1}, "1,1,1,1"},
		{Shape{65536, 257}, "65536,257"},
	} {
		got := c.shape.Spell()
		if got != c.want {
			t.Errorf("%v.Spell() = %q, want %q", c.shape, got, c.want)
		}
		back, err := ParseShape(got)
		if err != nil || !back.Equal(c.shape) {
			t.Errorf("ParseShape(%q) = %v, %v; want %v back", got, back, err, c.shape)
		}
	}
	for _, v := range [][]int{{}, {-1}, {4, -1, 3}, {0, 2}} {
		back, err := ParseInts("expand size", SpellInts(v))
		if err != nil || !slices.Equal(back, v) {
			t.Errorf("ParseInts(SpellInts(%v) = %q) = %v, %v", v, SpellInts(v), back, err)
		}
	}
}
