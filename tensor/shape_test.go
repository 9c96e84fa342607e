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
