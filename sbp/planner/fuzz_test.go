package planner

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// FuzzParse: whatever a person types, the parser and the greedy planner
// answer in one line.
func FuzzParse(f *testing.F) {
	f.Add("placement 4\nx = input 64,32 S(0)\nw = input 32,16 B\ny = matmul x w\ns = sum y 1,1\ngrad s")
	f.Add("placement [[0,1],[2,3]]; x = input 8,6 (S(0), B); y = max x 1,6; t = box y B")
	f.Add("placement 3\na = input 3,1 S(0)\nb = input 1,4 B\nc = div a b\nd = repeat c 2,1\ne = expand d 2,6,4\ngrad e")
	f.Add("placement 2; x = input 4,6 S(1); y = exp x; m = mean y 4,1; l = log m; r = relu l; grad r")
	f.Add("placement 2; w = input 4,6 S(1) from uniform; v = input 6 B from v.npy; y = add w v; grad y")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := program.Parse(src)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("a two-line error: %q", err)
			}
			return
		}
		if _, err := NewPlan(p, Greedy); err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("a two-line error: %q", err)
		}
	})
}
