package main

import (
	"strings"
	"testing"
)

// TestSbpViewOps: sbp plan takes transpose, permute (--perm) and reshape
// (--to): the plan's output SBP follows the signature, an uneven
// reshape is boxed first with the reshape's reason, and a missing or bad
// argument is one usage line.
func TestSbpViewOps(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the plan's text
	}{
		{[]string{"--op", "transpose", "--shape", "2,4,3", "--sbp", "S(1)", "--placement", "2"}, "in S(1) -> out S(2)"},
		{[]string{"--op", "permute", "--perm", "2,0,1", "--shape", "4,3,2", "--sbp", "S(0)", "--placement", "3"}, "in S(0) -> out S(1)"},
		{[]string{"--op", "reshape", "--to", "-1", "--shape", "8,3", "--sbp", "S(0)", "--placement", "4"}, "in S(0) -> out S(0)"},
		{[]string{"--op", "reshape", "--to", "3,2,4", "--shape", "6,4", "--sbp", "(S(1), S(0))", "--placement", "[[0,1,2],[3,4,5]]"}, "in (S(1), S(0)) -> out (S(2), S(0))"},
	} {
		got := runCLI(t, append([]string{"sbp", "plan"}, c.args...)...)
		if !strings.Contains(got, c.want) {
			t.Errorf("sbp plan %s:\n%s\nwant it to say %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	// [7 3] -> [21] over 2: rows 4 + 3 are 12 + 9 elements, the output's
	// parts 11 + 10, so x is boxed before the reshape, and its why says so.
	out := runCLI(t, "sbp", "plan", "--op", "reshape", "--to", "21", "--shape", "7,3", "--sbp", "S(0)", "--placement", "2", "--json")
	said := strings.Contains(out, `"why": "y = reshape x runs under B -> B, which takes x as B; it is S(0) (reshape cannot take x as S(0): `) &&
		strings.Contains(out, "[0, 12) of the input but its part of the output is [0, 11)")
	if !said {
		t.Errorf("no boxing says why the reshape cannot take x as S(0):\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--op", "reshape", "--shape", "8,3"}, "--op reshape needs --to"},
		{[]string{"--op", "permute", "--shape", "8,3"}, "--op permute needs --perm"},
		{[]string{"--op", "reshape", "--to", "5,5", "--shape", "8,3", "--sbp", "B", "--placement", "2"}, "reshape [8 3] to [5 5]: the input has 24 elements but the new shape has 25"},
		{[]string{"--op", "permute", "--perm", "0,0", "--shape", "8,3", "--sbp", "B", "--placement", "2"}, "names dim 0 twice"},
		{[]string{"--op", "reshape", "--to", "21", "--shape", "7,3", "--sbp", "S(0)", "--placement", "2", "--strict"}, "does not hold on"},
	} {
		code, msg := runFails(t, append([]string{"sbp", "plan"}, c.args...)...)
		if code == 0 || strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.Contains(msg, c.want) {
			t.Errorf("sbp plan %s: exit %d, %q; want one line saying %q", strings.Join(c.args, " "), code, msg, c.want)
		}
	}
}
