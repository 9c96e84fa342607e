package planner

import (
	"math/rand/v2"
	"testing"
)

// TestTreeCostEqualsMinTree checks Edmonds' cost against minTree's
// enumeration on random matrices: few distinct costs (ties and cycles
// of cheapest parents are common) and missing edges.
func TestTreeCostEqualsMinTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		k := 1 + rng.IntN(7)
		if i%1000 == 0 {
			k = 9 // past edmonds' buffers
		}
		w := make([][]int64, k+1)
		for a := range w {
			w[a] = make([]int64, k+1)
			for b := range w[a] {
				w[a][b] = -1
				if a != b && b != 0 && rng.IntN(5) > 0 {
					w[a][b] = int64(rng.IntN(4)) * 8
				}
			}
		}
		want := int64(-1)
		if par, missing := minTree(w, k); missing == 0 && par != nil {
			want = 0
			for b := 1; b <= k; b++ {
				want += w[par[b]][b]
			}
		}
		if got := treeCost(w, k); got != want {
			t.Fatalf("treeCost(%v) = %d, minTree's tree costs %d", w, got, want)
		}
	}
}
