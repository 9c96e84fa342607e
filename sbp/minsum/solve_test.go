package minsum

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomProblem makes nv variables of 1 to 3 values and nf factors of
// one to three variables each, some values sharing a class, some
// entries Infinite.
func randomProblem(r *rand.Rand, nv, nf int) ([]*Factor, []int) {
	dom := make([]int, nv)
	for v := range dom {
		dom[v] = 1 + r.IntN(3)
	}
	var fs []*Factor
	for range nf {
		vars := r.Perm(nv)[:1+r.IntN(min(3, nv))]
		slices.Sort(vars)
		f := &Factor{Vars: vars}
		size := 1
		for _, v := range vars {
			n := 1 + r.IntN(dom[v])
			cls := make([]int32, dom[v])
			for k := range cls {
				cls[k] = int32(k % n)
			}
			f.Cls, f.N = append(f.Cls, cls), append(f.N, n)
			size *= n
		}
		for range size {
			e := int64(r.IntN(100))
			if r.IntN(12) == 0 {
				e = Infinite
			}
			f.Tab = append(f.Tab, e)
		}
		fs = append(fs, f)
	}
	return fs, dom
}

// total is the sum of fs at the assignment x.
func total(fs []*Factor, x []int) int64 {
	t := int64(0)
	for _, f := range fs {
		idx := 0
		for j, v := range f.Vars {
			idx = idx*f.N[j] + int(f.Cls[j][x[v]])
		}
		t = Add(t, f.Tab[idx])
	}
	return t
}

// bruteMin enumerates every assignment.
func bruteMin(fs []*Factor, dom []int) int64 {
	best := Infinite
	x := make([]int, len(dom))
	for {
		best = min(best, total(fs, x))
		v := 0
		for v < len(x) {
			if x[v]++; x[v] < dom[v] {
				break
			}
			x[v] = 0
			v++
		}
		if v == len(x) {
			return best
		}
	}
}

func clone(fs []*Factor) []*Factor {
	out := make([]*Factor, len(fs))
	for i, f := range fs {
		out[i] = &Factor{Vars: slices.Clone(f.Vars), Cls: slices.Clone(f.Cls), N: slices.Clone(f.N), Tab: slices.Clone(f.Tab)}
	}
	return out
}

// TestSolveIsTheMinimum: on 500 random problems, Solve (in Order's
// order, after Prune) finds an assignment whose total is the minimum
// that enumerating every assignment finds, and the relaxation's bound
// after a few passes is at most that minimum.
func TestSolveIsTheMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		fs, dom := randomProblem(r, 2+r.IntN(6), 1+r.IntN(8))
		want := bruteMin(fs, dom)

		rx := NewRelaxation(clone(fs), dom)
		sc := rx.Scratch(dom)
		for p := range 6 {
			rx.Pass(p%2 == 0, sc)
		}
		if lb := rx.Bound(); want < Infinite && lb > float64(want)+Slack(float64(want)) {
			t.Fatalf("problem %d: the LP bound %v is above the minimum %d", i, lb, want)
		}

		work := clone(fs)
		order, _, _, _, found, err := Order(work, dom, 1e9, nil)
		if err != nil || !found {
			t.Fatalf("problem %d: no order (%v)", i, err)
		}
		Prune(work, dom, nil)
		x, got, err := Solve(work, dom, order, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("problem %d: Solve's minimum %d, enumeration's %d", i, got, want)
		}
		if want < Infinite && total(fs, x) != want {
			t.Fatalf("problem %d: Solve's assignment %v totals %d, not its minimum %d", i, x, total(fs, x), want)
		}
	}
}
