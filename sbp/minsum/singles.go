package minsum

import (
	"math"
	"slices"
)

// FixSingles takes every variable left with one candidate out of the
// factors that hold it (each table sliced at that candidate's class),
// and returns the factors over more than one candidate and the sum of
// those left over no variable. The elimination then joins the choices
// still open alone; a variable no factor holds keeps candidate 0.
func FixSingles(fs []*Factor, dom []int) ([]*Factor, int64) {
	var out []*Factor
	constant := int64(0)
	for _, f := range fs {
		g := f
		for j := len(g.Vars) - 1; j >= 0; j-- {
			if dom[g.Vars[j]] != 1 {
				continue
			}
			c := int(g.Cls[j][0])
			inner := 1
			for _, n := range g.N[j+1:] {
				inner *= n
			}
			n := g.N[j]
			tab := make([]int64, 0, len(g.Tab)/n)
			for o := 0; o < len(g.Tab); o += n * inner {
				tab = append(tab, g.Tab[o+c*inner:o+c*inner+inner]...)
			}
			g = &Factor{
				Vars: slices.Delete(slices.Clone(g.Vars), j, j+1),
				Cls:  slices.Delete(slices.Clone(g.Cls), j, j+1),
				N:    slices.Delete(slices.Clone(g.N), j, j+1),
				Tab:  tab,
			}
		}
		if len(g.Vars) == 0 {
			constant = Add(constant, g.Tab[0])
			continue
		}
		out = append(out, g)
	}
	return out, constant
}

// Slack is how far above U a candidate's bound may be and the candidate
// still be kept: the passes' sums are in float64, and a bound a
// rounding error above U must not drop a candidate of an optimal plan.
func Slack(u float64) float64 { return 1e-9*math.Abs(u) + 1 }
