package planner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/minsum"
	"github.com/stridelab/stridelab/sbp/program"
)

// TestReadLowerBoundsNeverPassTheFactor: on random programs (1-D and 2-D
// meshes, with backwards), for every tensor read by an op and every
// entry of its joined factor, the readLowerBounds that stand in for it
// in tighten's first stage sum to at most the entry; and somewhere the
// bound is above 0 (it is not vacuous).
func TestReadLowerBoundsNeverPassTheFactor(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 1))
	meshes := []string{"2", "3", "4", "[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"}
	entries, positive := 0, 0
	programs := 60
	if runtime.GOOS == "js" { // make test-wasm: the same arithmetic on a fifth, in the browser's runtime
		programs = 12
	}
	for range programs {
		src := randomProgramOn(r, meshes, 5)
		p, err := program.Parse(src)
		if err != nil {
			t.Fatalf("does not parse: %v\n%s", err, src)
		}
		pl, err := newPlanner(p)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if err := pl.onCluster(Options{}); err != nil {
			t.Fatal(err)
		}
		varOf, dom := make([]int, len(pl.g.Nodes)), []int{}
		for i := range pl.g.Nodes {
			varOf[i] = -1
			if pl.cands[i] != nil {
				varOf[i] = len(dom)
				dom = append(dom, len(pl.cands[i]))
			}
		}
		for x := range len(pl.names) {
			lbs := pl.readLowerBounds(x, varOf, dom)
			if lbs == nil {
				continue
			}
			f, fill := pl.tensorFactor(x, pl.scope(x, varOf), varOf, dom, nil)
			if len(f.Tab) > 1<<12 {
				continue
			}
			if err := fill(); err != nil {
				t.Fatal(err)
			}
			// A candidate per class of each of f's vars stands for the
			// entry: the lower bounds are read at those candidates.
			reps := make([][]int, len(f.Vars))
			for s := range f.Vars {
				reps[s] = make([]int, f.N[s])
				for k, c := range f.Cls[s] {
					reps[s][c] = k
				}
			}
			pick := map[int]int{}
			for e, want := range f.Tab {
				rest := e
				for s := len(f.Vars) - 1; s >= 0; s-- {
					pick[f.Vars[s]] = reps[s][rest%f.N[s]]
					rest /= f.N[s]
				}
				sum := int64(0)
				for _, lb := range lbs {
					at := 0
					for s, v := range lb.Vars {
						at = at*lb.N[s] + int(lb.Cls[s][pick[v]])
					}
					sum = minsum.Add(sum, lb.Tab[at])
				}
				entries++
				if sum > 0 {
					positive++
				}
				if sum > want {
					t.Fatalf("%s: the reads' lower bounds sum to %d at %v, the factor is %d\n%s", pl.g.Nodes[pl.def[x]].Name, sum, pick, want, src)
				}
			}
		}
	}
	t.Logf("%d entries checked, %d with a bound above 0", entries, positive)
	if positive == 0 {
		t.Error("the lower bounds are 0 everywhere")
	}
}

// TestExactRefusesATensorOfManyReaders: x read by fourteen products on a
// 2×3 mesh and by their backward has a joined factor of 25^29 entries,
// past every int; exact refuses it in one line, naming x, and does not
// panic counting it.
func TestExactRefusesATensorOfManyReaders(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("make test-wasm: the refusal's arithmetic is checked natively")
	}
	var b strings.Builder
	b.WriteString("placement [[0,1,2],[3,4,5]]; x = input 12,12,12 (S(0), B)")
	for i := 1; i <= 14; i++ {
		fmt.Fprintf(&b, "; w%d = input 12,12,12 (B, S(%d)); y%d = mul x w%d", i, i%3, i, i)
	}
	b.WriteString("; z1 = add y1 y2")
	for i := 3; i <= 14; i++ {
		fmt.Fprintf(&b, "; z%d = add z%d y%d", i-1, i-2, i)
	}
	b.WriteString("; s = sum z13 1,1,1; grad s")
	p, err := program.Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(p, Exact)
	if err == nil || !strings.Contains(err.Error(), "the table of x (the ops that make and read it: 28)") {
		t.Errorf("exact: %v, want a refusal naming x's table", err)
	}
}

// TestExactPrimalEqualsEnumeration is TestExactTightenedEqualsEnumeration
// with the neighbourhood search (restrictedPlan) after every bound's
// passes, on 150 other programs: the plans it finds lower U and what
// U drops, never the optimum.
func TestExactPrimalEqualsEnumeration(t *testing.T) {
	tightenAlways, primalAlways = true, true
	defer func() { tightenAlways, primalAlways = false, false }()
	checkExactEqualsEnumeration(t, 5, 150)
}
