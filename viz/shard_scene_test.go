package viz

import "testing"

func TestFormatRanges(t *testing.T) {
	if got := FormatRanges([][2]int{{0, 7}, {3, 33}}); got != "[0:7, 3:33]" {
		t.Errorf("FormatRanges([[0 7] [3 33]]) = %q, want %q", got, "[0:7, 3:33]")
	}
}
