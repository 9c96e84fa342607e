package sbp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// TestViewGroups checks the groups against DTensor's own examples
// (test_view_ops.py's test_view_groups) and the size-1 and empty cases.
func TestViewGroups(t *testing.T) {
	for _, c := range []struct {
		from, to tensor.Shape
		want     string
	}{
		{tensor.Shape{2, 3}, tensor.Shape{3, 2}, "[0 1]->[0 1]"},
		{tensor.Shape{3, 4, 5}, tensor.Shape{12, 5}, "[0 1]->[0] [2]->[1]"},
		{tensor.Shape{2, 3, 4, 5, 7}, tensor.Shape{12, 70}, "[0 1 2 3 4]->[0 1]"},
		{tensor.Shape{2, 3, 4}, tensor.Shape{2, 12}, "[0]->[0] [1 2]->[1]"},
		{tensor.Shape{6}, tensor.Shape{2, 3}, "[0]->[0 1]"},
		{tensor.Shape{6, 4}, tensor.Shape{3, 2, 4}, "[0]->[0 1] [1]->[2]"},
		{tensor.Shape{7, 3}, tensor.Shape{21}, "[0 1]->[0]"},
		{tensor.Shape{6, 1, 4}, tensor.Shape{1, 6, 1, 4}, "[]->[0] [0]->[1] [1]->[2] [2]->[3]"},
		{tensor.Shape{1, 6}, tensor.Shape{6}, "[0]->[] [1]->[0]"},
		{tensor.Shape{6}, tensor.Shape{2, 1, 3}, "[0]->[0 1 2]"},
		{tensor.Shape{}, tensor.Shape{1, 1}, "[]->[0] []->[1]"},
		{tensor.Shape{1}, tensor.Shape{}, "[0]->[]"},
		{tensor.Shape{5, 0}, tensor.Shape{0, 5}, "[0 1]->[0 1]"},
	} {
		var got []string
		for _, g := range viewGroups(c.from, c.to) {
			got = append(got, fmt.Sprintf("%v->%v", fmtDims(g.In), fmtDims(g.Out)))
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("viewGroups(%v, %v) = %s, want %s", c.from, c.to, s, c.want)
		}
	}
}

func fmtDims(d []int) string { return fmt.Sprint(append([]int{}, d...)) }

func TestReshapeSignatures(t *testing.T) {
	const bp = "B -> B; P(sum) -> P(sum); P(max) -> P(max); P(min) -> P(min)"
	for _, c := range []struct {
		to    []int
		in    tensor.Shape
		want  string
		eager string
	}{
		{[]int{21}, tensor.Shape{7, 3}, "S(0) -> S(0); " + bp, "S(0) -> S(0); P(sum) -> P(sum); B -> B"},
		{[]int{3, 2, 4}, tensor.Shape{6, 4}, "S(0) -> S(0); S(1) -> S(2); " + bp, "S(0) -> S(0); S(1) -> S(2); P(sum) -> P(sum); B -> B"},
		{[]int{-1, 5}, tensor.Shape{3, 4, 5}, "S(0) -> S(0); S(2) -> S(1); " + bp, "S(0) -> S(0); S(2) -> S(1); P(sum) -> P(sum); B -> B"},
		{[]int{1, 6, 1, 4}, tensor.Shape{6, 1, 4}, "S(0) -> S(1); S(1) -> S(2); S(2) -> S(3); " + bp, "S(0) -> S(1); S(2) -> S(3); P(sum) -> P(sum); B -> B"},
		{[]int{0, 5}, tensor.Shape{5, 0}, "S(0) -> S(0); " + bp, "B -> B"},
		{[]int{1}, tensor.Shape{}, bp, "B -> B"},
		{[]int{4, 5}, tensor.Shape{7, 3}, "", "B -> B"},
	} {
		op := Reshape(c.to)
		var got, eager []string
		for _, s := range op.Signatures([]tensor.Shape{c.in}) {
			got = append(got, s.String())
		}
		for _, s := range EagerSignatures(op, []tensor.Shape{c.in}) {
			eager = append(eager, s.String())
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%v %v: signatures\n  %s\nwant\n  %s", op, c.in, strings.Join(got, "; "), c.want)
		}
		if strings.Join(eager, "; ") != c.eager {
			t.Errorf("%v %v: OneFlow's list\n  %s\nwant\n  %s", op, c.in, strings.Join(eager, "; "), c.eager)
		}
	}
}

func TestReshapeShapesAndErrors(t *testing.T) {
	checkInfer(t, []inferCase{
		{Reshape([]int{8, 4, 16}), []tensor.Shape{{8, 64}}, "S(0)", "[8 4 16] S(0)", nil},
		{Reshape([]int{-1}), []tensor.Shape{{8, 3}}, "S(0)", "[24] S(0)", nil},
		{Reshape([]int{-1}), []tensor.Shape{{8, 3}}, "P(max)", "[24] P(max)", nil},
		{Reshape([]int{4, 2, 3}), []tensor.Shape{{8, 3}}, "S(1)", "[4 2 3] S(2)", nil},
		{Reshape([]int{8, 4}), []tensor.Shape{{7, 3}}, "B", "reshape [7 3] to [8 4]: the input has 21 elements but the new shape has 32", ErrShape},
		{Reshape([]int{-1, -1}), []tensor.Shape{{7, 3}}, "B", "reshape [7 3] to [-1 -1]: dims 0 and 1 are both -1", ErrShape},
		{Reshape([]int{-1, 4}), []tensor.Shape{{7, 3}}, "B", "cannot infer dim 0: 21 elements do not divide into blocks of 4", ErrShape},
		{Reshape([]int{-2, 3}), []tensor.Shape{{7, 3}}, "B", "dim 0 has size -2", ErrShape},
		{Reshape([]int{21}), []tensor.Shape{{7, 3}}, "S(1)", "no signature takes S(1): dim 1 is flattened after dim 0 (input dims [0 1] are output dims [0] of [21])", ErrSignature},
		{Reshape([]int{6}), []tensor.Shape{{1, 6}}, "S(0)", "dim 0 has size 1 and the reshape drops it", ErrSignature},
		{Reshape([]int{21}), []tensor.Shape{{7, 3}}, "S(0)", "S(0) -> S(0) does not hold on cpu:[0, 1]: input dims [0 1] of [7 3] are output dims [0] of [21]; device 0 holds their elements [0, 12) of the input but its part of the output is [0, 11)", ErrSignature},
		{Reshape([]int{3, 2, 4}), []tensor.Shape{{6, 4}}, "S(0)", "device 0 holds their elements [0, 3) of the input but its part of the output is [0, 4)", ErrSignature},
		{Reshape([]int{2, 3, 4}), []tensor.Shape{{6, 4}}, "S(0)", "[2 3 4] S(0)", nil},
	})
}

// TestReshapePlacementFault checks PlacementFault against what a device
// computes: for every split signature of every shape on every mesh, the
// fault is "" exactly when each device's reshaped input shard is its
// shard of the reshaped tensor. The shapes split unevenly; the meshes
// are 1 to 5 devices, 2×2 and 2×3, so splits of splits are checked too.
func TestReshapePlacementFault(t *testing.T) {
	var meshes []Placement
	for n := 1; n <= 5; n++ {
		p, _ := Devices(n)
		meshes = append(meshes, p)
	}
	for _, s := range []string{"[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"} {
		p, _ := ParsePlacement(s)
		meshes = append(meshes, p)
	}
	holds, faults := 0, 0
	for _, c := range []struct {
		in tensor.Shape
		to []int
	}{
		{tensor.Shape{7, 3}, []int{21}}, {tensor.Shape{8, 3}, []int{24}}, {tensor.Shape{6, 4}, []int{3, 2, 4}},
		{tensor.Shape{6, 4}, []int{3, 8}}, {tensor.Shape{12, 5}, []int{2, 6, 5}}, {tensor.Shape{4, 6}, []int{4, 2, 3}},
		{tensor.Shape{30}, []int{6, 5}}, {tensor.Shape{2, 3, 5}, []int{6, 5}},
	} {
		op := Reshape(c.to)
		shapes := []tensor.Shape{c.in}
		out, _ := op.OutShape(shapes)
		x, _ := tensor.Arange(tensor.Float32, c.in)
		y, _ := x.Reshape(out)
		for _, p := range meshes {
			cands := map[string]bool{}
			all, _ := Candidates(op, shapes, p)
			for _, cd := range all {
				cands[cd.In[0].String()+cd.Out.String()] = true
			}
			for _, in := range splitNds(op.Signatures(shapes), p.MeshRank()) {
				if Validate(c.in, p, in[0]) != nil {
					continue
				}
				o, _, err := inferUnplaced(op, shapes, p, in)
				if err != nil || Validate(out, p, o) != nil {
					continue
				}
				fault := PlacementFault(op, shapes, p, in, o)
				right := devicesAgree(t, x, y, p, in[0], o)
				if (fault == "") != right {
					t.Errorf("%v %v on %v with %v -> %v: fault %q, but the devices' shards agree: %v", op, c.in, p, in[0], o, fault, right)
				}
				if cands[in[0].String()+o.String()] != right {
					t.Errorf("%v %v on %v with %v -> %v: Candidates lists it %v, want %v", op, c.in, p, in[0], o, !right, right)
				}
				if right {
					holds++
				} else {
					faults++
				}
			}
		}
	}
	if holds == 0 || faults == 0 {
		t.Errorf("%d combinations hold and %d do not: the cases should have both", holds, faults)
	}
}

// splitNds lists every nd-SBP of one input that takes one of sigs on
// every mesh dim and splits on at least one.
func splitNds(sigs []Signature, rank int) [][]NdSbp {
	var out [][]NdSbp
	choice := make([]int, rank)
	for {
		nd := make(NdSbp, rank)
		for m, c := range choice {
			nd[m] = sigs[c].In[0]
		}
		if slices.ContainsFunc(nd, func(s SBP) bool { return s.Kind == Split }) {
			out = append(out, []NdSbp{nd})
		}
		if !nextChoice(choice, len(sigs)) {
			return out
		}
	}
}

// inferUnplaced is Infer without the placement's say: each mesh dim's
// signature's output.
func inferUnplaced(op Op, shapes []tensor.Shape, p Placement, in []NdSbp) (NdSbp, []Signature, error) {
	sigs := op.Signatures(shapes)
	out := make(NdSbp, p.MeshRank())
	for m := range out {
		s, ok := findSignature(sigs, []SBP{in[0][m]})
		if !ok {
			return nil, nil, fmt.Errorf("no signature")
		}
		out[m] = s.Out
	}
	return out, nil, nil
}

// devicesAgree says whether every device's input shard of x, reshaped to
// its output shard's shape, holds the values of its shard of y.
func devicesAgree(t *testing.T, x, y tensor.Tensor, p Placement, in, out NdSbp) bool {
	t.Helper()
	xs, err := Shards(x.Shape(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := Shards(y.Shape(), p, out)
	if err != nil {
		t.Fatal(err)
	}
	for r := range xs {
		a, b := box(t, x, xs[r]), box(t, y, ys[r])
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// box returns the values of the shard's range of t in row-major order.
func box(t *testing.T, v tensor.Tensor, sh Shard) []float64 {
	t.Helper()
	for d := range sh.Lo {
		var err error
		if v, err = v.Narrow(d, sh.Lo[d], sh.Hi[d]); err != nil {
			t.Fatal(err)
		}
	}
	return v.Float64s()
}

// TestReshapeLocalOwnsItsBuffer: the output of a device never shares its
// input's buffer, whether the shard's layout allows a view or not, since
// the runner releases (recycles) every value on its own.
func TestReshapeLocalOwnsItsBuffer(t *testing.T) {
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{4, 6})
	xt, _ := x.Permute([]int{1, 0}) // no view of it is [24]
	for _, in := range []tensor.Tensor{x, xt} {
		y, err := Reshape([]int{-1}).Local(tensor.CPU{}, []tensor.Tensor{in}, tensor.Shape{24})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tensor.CPU{}.Materialize(in)
		if !slices.Equal(y.Float64s(), want.Float64s()) {
			t.Errorf("reshape of %v: %v, want %v", in.Layout(), y.Float64s(), want.Float64s())
		}
		a, _ := tensor.Buffer[float32](in)
		b, _ := tensor.Buffer[float32](y)
		if &a[0] == &b[0] {
			t.Errorf("reshape of %v: the output shares the input's buffer", in.Layout())
		}
	}
}

// TestReshapeParams: Params gives reshape's target shape as written.
func TestReshapeParams(t *testing.T) {
	if p := Params(Reshape([]int{2, -1})); p.Name != "reshape" || !slices.Equal(p.Shape, []int{2, -1}) {
		t.Errorf("Params(reshape to [2 -1]) = %+v", p)
	}
}
