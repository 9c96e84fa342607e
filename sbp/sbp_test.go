package sbp

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"S(0)", "S(0)"}, {"s( 12 )", "S(12)"}, {"split(3)", "S(3)"}, {"flow.sbp.split(1)", "S(1)"},
		{"B", "B"}, {"broadcast", "B"},
		{"P", "P(sum)"}, {"P(sum)", "P(sum)"}, {"partial_sum", "P(sum)"},
		{"P(max)", "P(max)"}, {"p(MIN)", "P(min)"}, {"partial_max", "P(max)"},
	} {
		got, err := Parse(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"", "an SBP is"}, {"S", "an SBP is"}, {"S()", "whole number"}, {"S(-1)", "must be >= 0"},
		{"S(1", "whole number"}, {"S(x)", "whole number"}, {"S(+1)", "whole number"},
		{"P(avg)", "a partial is"}, {"Q", "an SBP is"}, {"S(99999999999999999999)", "whole number"},
	} {
		_, err := Parse(c.in)
		if err == nil || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.in) {
			t.Errorf("Parse(%q): error %v, want one that quotes the input and says %q", c.in, err, c.says)
		}
	}
}

func TestParseNd(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"S(0)", "S(0)"}, {"(S(0), B)", "(S(0), B)"}, {"[S(1),P]", "(S(1), P(sum))"},
		{"S(0),B", "(S(0), B)"}, {"(B)", "B"}, {"(S(0), S(1), P(max))", "(S(0), S(1), P(max))"},
	} {
		got, err := ParseNd(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("ParseNd(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "()", "(S(0),)", "(S(0), X)", "S(0)) (", ","} {
		if _, err := ParseNd(in); err == nil || !errors.Is(err, ErrParse) {
			t.Errorf("ParseNd(%q): error %v, want ErrParse", in, err)
		}
	}
}
