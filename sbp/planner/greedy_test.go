package planner

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// oneflowPick is the test's own transcription of OneFlow's eager rule
// (docs/planner-sources.md §1.3–1.6): given an op's list in OneFlow's
// order (sbp.EagerSignatures), its input shapes and its producers'
// SBPs, the inputs and output it runs under. ok is false when nothing
// can be picked.
func oneflowPick(t *testing.T, op sbp.Op, list []sbp.Signature, shapes []tensor.Shape, outShape tensor.Shape, hints []sbp.NdSbp, p sbp.Placement) ([]sbp.NdSbp, sbp.NdSbp, bool) {
	t.Helper()
	h := p.Hierarchy()
	type cand struct {
		in  []sbp.NdSbp
		out sbp.NdSbp
	}
	holds := func(c cand) bool { // stridelab can lay these out
		if sbp.Validate(outShape, p, c.out) != nil {
			return false
		}
		// OneFlow's reshape lists a split only where the sizes divide
		// the parallel num (GetGroupStartInAxis2OutAxis): its list
		// depends on the placement, as PlacementFault's does
		if sbp.PlacementFault(op, shapes, p, c.in, c.out) != "" {
			return false
		}
		for j := range c.in {
			if sbp.Validate(shapes[j], p, c.in[j]) != nil {
				return false
			}
		}
		return true
	}
	size := func(j int) float64 { n, _ := shapes[j].NumElements(); return 4 * float64(n) }
	if len(h) == 1 {
		n := h[0]
		var cs []cand
		for _, s := range list {
			ok := true
			for j, x := range s.In {
				if x.Kind == sbp.Split && shapes[j][x.Axis] < n {
					ok = false // FilterAndCheckValidSbpSignatureListByLogicalShape
				}
			}
			c := cand{out: sbp.NdSbp{s.Out}}
			for _, x := range s.In {
				c.in = append(c.in, sbp.NdSbp{x})
			}
			if ok && holds(c) {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			return nil, nil, false
		}
		order := func(c cand) int {
			v := 0
			for j := range hints {
				if hints[j][0] == c.in[j][0] {
					v -= 10
				}
			}
			return v
		}
		cost := func(c cand) float64 {
			v := 0.0
			for j := range hints {
				pj, cj := hints[j][0], c.in[j][0]
				switch {
				case pj == cj:
				case cj.Kind == sbp.Partial:
					v += 9223372036854775807
				case pj.Kind == sbp.Broadcast:
					v += 2147483647
				default:
					v += size(j)
				}
			}
			return v
		}
		sort.SliceStable(cs, func(a, b int) bool {
			oa, ob := order(cs[a]), order(cs[b])
			return oa < ob || oa == ob && cost(cs[a]) < cost(cs[b])
		})
		return cs[0].in, cs[0].out, true
	}
	// N-D: the product of the 1-D list, dim 0 outermost, then the shape
	// filter that swaps the last entry into a removed one.
	var cs []cand
	var walk func(d int, in []sbp.NdSbp, out sbp.NdSbp)
	walk = func(d int, in []sbp.NdSbp, out sbp.NdSbp) {
		if d == len(h) {
			c := cand{out: slices.Clone(out)}
			for _, x := range in {
				c.in = append(c.in, slices.Clone(x))
			}
			cs = append(cs, c)
			return
		}
		for _, s := range list {
			for j := range in {
				in[j] = append(in[j], s.In[j])
			}
			walk(d+1, in, append(out, s.Out))
			for j := range in {
				in[j] = in[j][:d]
			}
		}
	}
	walk(0, make([]sbp.NdSbp, len(shapes)), nil)
	for k := len(cs) - 1; k >= 0; k-- {
		ok := true
		for j, nd := range cs[k].in {
			sh := slices.Clone(shapes[j])
			for d, x := range nd {
				if x.Kind == sbp.Split {
					if sh[x.Axis] < h[d] {
						ok = false
					} else {
						sh[x.Axis] /= h[d]
					}
				}
			}
		}
		if !ok {
			cs[k] = cs[len(cs)-1]
			cs = cs[:len(cs)-1]
		}
	}
	var kept []cand
	for _, c := range cs {
		if holds(c) {
			kept = append(kept, c)
		}
	}
	one := func(a, b sbp.SBP, t float64, n int) float64 {
		nn := float64(n)
		switch {
		case a == b:
			return 0
		case b.Kind == sbp.Partial:
			return 8 * t * nn
		case a.Kind == sbp.Broadcast:
			return 1
		case a.Kind == sbp.Split && b.Kind == sbp.Split:
			return t * (nn - 1) / nn
		case a.Kind == sbp.Partial && b.Kind == sbp.Broadcast:
			return 2 * t * (nn - 1)
		}
		return t * (nn - 1)
	}
	ndCost := func(a, b sbp.NdSbp, t float64) float64 {
		var ra, rb []sbp.SBP
		var rh []int
		for d := range h {
			if h[d] == 1 {
				continue
			}
			if k := len(ra) - 1; k >= 0 && ra[k] == a[d] && rb[k] == b[d] {
				rh[k] *= h[d]
			} else {
				ra, rb, rh = append(ra, a[d]), append(rb, b[d]), append(rh, h[d])
			}
		}
		if slices.Equal(ra, rb) {
			return 0
		}
		if len(ra) == 1 {
			return one(ra[0], rb[0], t, rh[0])
		}
		total, odd := 1.0, false
		for i := range ra {
			total += one(ra[i], rb[i], t, p.Size())
			if rb[i].Kind == sbp.Partial && ra[i] != rb[i] {
				total += 8 * t * float64(p.Size())
			}
			for j := 0; j < i && ra[i].Kind == sbp.Split && ra[i] == rb[i]; j++ {
				if ra[j] != rb[j] && (ra[j] == ra[i] || rb[j] == ra[i]) {
					odd = true
				}
			}
		}
		if odd {
			total += t
		}
		return total
	}
	best, min := -1, 0.8*math.MaxFloat32
	for k, c := range kept {
		all, total := true, 0.0
		for j := range hints {
			all = all && hints[j].Equal(c.in[j])
			total += ndCost(hints[j], c.in[j], size(j))
		}
		if all {
			return c.in, c.out, true
		}
		if total < min*0.9999999 {
			best, min = k, total
		}
	}
	if best < 0 {
		return nil, nil, false
	}
	return kept[best].in, kept[best].out, true
}

// checkEager: every op of a greedy plan runs under the signature the
// transcription of OneFlow's rule picks from its producers' layouts.
func checkEager(t *testing.T, plan *Plan, src string) {
	t.Helper()
	sbpOf := map[string]sbp.NdSbp{}
	shapeOf := map[string]tensor.Shape{}
	p := plan.Program.Placement
	for _, s := range plan.Steps {
		nd := s.Out()
		if s.Kind == StepOp {
			shapes := make([]tensor.Shape, len(s.Inputs))
			hints := make([]sbp.NdSbp, len(s.Inputs))
			for j, a := range s.Inputs {
				shapes[j], hints[j] = shapeOf[a], sbpOf[a]
			}
			in, out, ok := oneflowPick(t, s.Operation(), sbp.EagerSignatures(s.Operation(), shapes), shapes, s.Shape, hints, p)
			got := s.InSbp
			if !ok || !slices.EqualFunc(in, got, sbp.NdSbp.Equal) || !out.Equal(nd) {
				t.Errorf("%s = %s on %v: greedy runs %v -> %v, OneFlow's rule picks %v -> %v (ok %v)\n%s", s.Name, s.Op, hints, got, nd, in, out, ok, src)
			}
		}
		if _, seen := sbpOf[s.Name]; !seen || s.Kind != StepBoxing {
			sbpOf[s.Name], shapeOf[s.Name] = nd, s.Shape
		}
	}
}

// TestGreedyIsOneFlowsRule: on 600 random programs (1-D meshes of 1 to 5
// devices, 2×2 and 2×3; forward and backward), greedy's every choice is
// the transcription's.
func TestGreedyIsOneFlowsRule(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 3))
	n := 600
	switch {
	case runtime.GOOS == "js": // make test-wasm: a sample, in the browser's runtime
		n = 40
	case testing.Short():
		n = 100
	}
	for range n {
		src := randomProgram(r)
		p, err := program.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(p, Greedy)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		checkEager(t, plan, src)
	}
}

// TestGreedyVectors: the worked examples of OneFlow's 1-D rule
// (docs/planner-sources.md §3 and §6), on two devices: the SBP each op's
// output gets.
func TestGreedyVectors(t *testing.T) {
	for _, c := range []struct {
		src, name, want string
	}{
		// OneFlow's t1 S(0) + t2 S(1) on two devices gives t3 S(0).
		{"placement 2; t1 = input 2,4 S(0); t2 = input 2,4 S(1); t3 = add t1 t2", "t3", "S(0)"},
		{"placement 2; t1 = input 2,4 B; t2 = input 2,4 S(1); t3 = add t1 t2", "t3", "B"},
		{"placement 2; a = input 4,6 S(0); b = input 6,8 B; y = matmul a b", "y", "S(0)"},
		{"placement 2; a = input 4,6 S(1); b = input 6,8 S(0); y = matmul a b", "y", "P(sum)"},
		{"placement 2; a = input 4,6 S(0); b = input 6,8 S(0); y = matmul a b", "y", "P(sum)"},
		{"placement 2; a = input 8,6 S(0); b = input 6,4 S(1); y = matmul a b", "y", "S(0)"},
		{"placement 2; x = input 4,8 P; z = input 1 B; y = max x z", "y", "S(0)"},
		{"placement 2; x = input 1,8 S(1); y = expand x 4,8", "y", "S(1)"},
		{"placement 2; x = input 1,8 P; y = expand x 4,8", "y", "P(sum)"},
		{"placement 2; x = input 1,8 B; y = expand x 4,8", "y", "B"},
		{"placement 2; x = input 4,8 S(1); y = sum x 4,1", "y", "P(sum)"},
		{"placement 2; x = input 4,8 S(0); y = sum x 4,1", "y", "S(0)"},
		{"placement 2; x = input 4,8 P; y = sum x 4,1", "y", "P(sum)"},
		{"placement 2; x = input 4,8 S(0); b = input 8 B; z = add x b", "z", "S(0)"},
		{"placement 2; x = input 4,8 P; b = input 8 B; z = mul x b", "z", "P(sum)"},
		// repeat is OneFlow's reshape, expand and reshape: a B input stays
		// B (OneFlow's expand has no B -> S), an untiled split stays split.
		{"placement 3; x = input 1,4 B; y = repeat x 3,1", "y", "B"},
		{"placement 2; x = input 4,6 S(1); y = repeat x 3,1", "y", "S(1)"},
	} {
		p, err := program.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(p, Greedy)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got := ""
		for _, s := range plan.Steps {
			if s.Name == c.name {
				got = s.Out().String()
			}
		}
		if got != c.want {
			t.Errorf("%s: %s is %s, OneFlow's rule gives %s", c.src, c.name, got, c.want)
		}
	}
}
