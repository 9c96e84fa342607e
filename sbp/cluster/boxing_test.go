package cluster

import (
	"errors"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

func plan(t *testing.T, shape tensor.Shape, placement, from, to string) sbp.Boxing {
	t.Helper()
	p, err := sbp.ParsePlacement(placement)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sbp.ParseNd(from)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sbp.ParseNd(to)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sbp.PlanBoxing(shape, tensor.Float32, p, f, g)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTimeBoxing1D: a float32 [1024, 256] tensor (S = 1 MiB) boxed on
// 2, 4 and 8 devices of one link: each boxing is one collective, timed
// by its formula written out by hand.
func TestTimeBoxing1D(t *testing.T) {
	const a, b, S = 1e-5, 5e10, 1 << 20
	c := Cluster{Name: "one-link", Links: []Link{{Alpha: a, Beta: b}}, Device: Device{FLOPs: 1, MemBytes: 1, MemCapacity: 1}}
	cases := []struct {
		n        string
		from, to string
		want     float64
	}{
		{"2", "S(0)", "B", 1*a + S/2/b},
		{"4", "S(0)", "B", 3*a + 3*S/4/b},
		{"8", "S(0)", "B", 7*a + 7*S/8/b},
		{"2", "P", "S(1)", 1*a + S/2/b},
		{"4", "P", "S(1)", 3*a + 3*S/4/b},
		{"8", "P", "S(0)", 7*a + 7*S/8/b},
		{"2", "P", "B", 2*a + S/b},
		{"4", "P", "B", 6*a + 6*S/4/b},
		{"8", "P", "B", 14*a + 14*S/8/b},
		{"2", "S(0)", "S(1)", 1*a + S/4/b},
		{"4", "S(0)", "S(1)", 3*a + 3*S/16/b},
		{"8", "S(1)", "S(0)", 7*a + 7*S/64/b},
		{"4", "B", "S(0)", 0},
		{"4", "B", "P", 0},
		{"4", "S(1)", "P", 0},
		{"4", "S(0)", "S(0)", 0},
		// P(max) -> P(sum): an all-reduce, then a local zero
		{"4", "P(max)", "P", 6*a + 6*S/4/b},
	}
	for _, k := range cases {
		bx := plan(t, tensor.Shape{1024, 256}, k.n, k.from, k.to)
		got, err := TimeBoxing(c, bx)
		if err != nil {
			t.Errorf("%s -> %s on %s: %v", k.from, k.to, k.n, err)
			continue
		}
		if !near(got.TimeS, k.want) {
			t.Errorf("%s -> %s on %s devices (%s): got %g s, want %g s", k.from, k.to, k.n, bx.Collective, got.TimeS, k.want)
		}
		sum := 0.0
		for _, s := range got.Steps {
			sum += s.TimeS
		}
		if len(got.Steps) != len(bx.Steps) || sum != got.TimeS {
			t.Errorf("%s -> %s on %s: %d steps summing to %g for a boxing of %d steps taking %g", k.from, k.to, k.n, len(got.Steps), sum, len(bx.Steps), got.TimeS)
		}
	}
}

// TestTimeBoxing2x4: boxings on a 2×4 mesh of two-h100-nodes (mesh dim 0
// across InfiniBand, dim 1 over NVLink): each step along its own dim's
// link, the boxing their sum, written out by hand.
func TestTimeBoxing2x4(t *testing.T) {
	c, _ := Preset("two-h100-nodes")
	const (
		aIB, bIB = 1e-5, 5e10   // mesh dim 0: 2 devices per group
		aNV, bNV = 3e-6, 4.5e11 // mesh dim 1: 4 devices per group
		S        = 1 << 20      // float32 [1024, 256]
	)
	mesh := "[[0,1,2,3],[4,5,6,7]]"
	cases := []struct {
		from, to string
		steps    []float64 // in order: the last mesh dim first
	}{
		// (S(0), S(1)) -> (B, B): all-gather along dim 1 of each half of
		// the rows (S/2 per group), then along dim 0 of the whole tensor.
		{"S(0),S(1)", "B,B", []float64{3*aNV + 3*(S/2)/4/bNV, 1*aIB + (S)/2/bIB}},
		// (P, P) -> (B, B): two all-reduces of the whole tensor.
		{"P,P", "B,B", []float64{6*aNV + 6*S/4/bNV, 2*aIB + 2*S/2/bIB}},
		// data-parallel gradient on the slow dim only: (P, B) -> (B, B).
		{"P,B", "B,B", []float64{2*aIB + 2*S/2/bIB}},
		// the same all-reduce on the fast dim: (B, P) -> (B, B).
		{"B,P", "B,B", []float64{6*aNV + 6*S/4/bNV}},
		// (S(0), B) -> (S(0), S(1)): a local slice, nothing moves.
		{"S(0),B", "S(0),S(1)", []float64{0}},
		// (S(1), S(0)) -> (S(0), S(1)): mesh dim 0 splits columns while
		// dim 1 splits rows, so no step is a 1-D conversion in place:
		// PlanBoxing gathers dim 1 (within each half of the columns, S/2
		// per group), then dim 0 (the whole tensor), and slices both,
		// which moves nothing.
		{"S(1),S(0)", "S(0),S(1)", []float64{3*aNV + 3*(S/2)/4/bNV, 1*aIB + S/2/bIB, 0, 0}},
	}
	for _, k := range cases {
		bx := plan(t, tensor.Shape{1024, 256}, mesh, k.from, k.to)
		got, err := TimeBoxing(c, bx)
		if err != nil {
			t.Errorf("%s -> %s: %v", k.from, k.to, err)
			continue
		}
		if len(got.Steps) != len(k.steps) {
			t.Errorf("%s -> %s (%s): %d steps, want %d", k.from, k.to, bx.Collective, len(got.Steps), len(k.steps))
			continue
		}
		total := 0.0
		for i, s := range got.Steps {
			total += k.steps[i]
			if !near(s.TimeS, k.steps[i]) {
				t.Errorf("%s -> %s step %d (%s on mesh dim %d, n=%d, S=%g): got %g s, want %g s", k.from, k.to, i, s.Collective, s.MeshDim, s.Devices, s.Bytes, s.TimeS, k.steps[i])
			}
			l := c.Links[s.MeshDim]
			if s.Alpha != l.Alpha || s.Beta != l.Beta {
				t.Errorf("%s -> %s step %d on mesh dim %d reports α %g β %g, the link is %+v", k.from, k.to, i, s.MeshDim, s.Alpha, s.Beta, l)
			}
		}
		if !near(got.TimeS, total) {
			t.Errorf("%s -> %s: total %g s, want %g s", k.from, k.to, got.TimeS, total)
		}
	}
}

// TestTimeBoxingSlowestGroup: with uneven shards the groups along a mesh
// dim hold different amounts, and the largest decides the step: [5, 8]
// as (S(0), S(1)) on 2×2 has row halves 3 and 2, so the all-gather along
// dim 1 moves 3·8 floats in the first group and 2·8 in the second.
func TestTimeBoxingSlowestGroup(t *testing.T) {
	const a, b = 1e-6, 1e9
	c := Cluster{Name: "c", Links: []Link{{Alpha: a, Beta: b}, {Alpha: a, Beta: b}}, Device: Device{FLOPs: 1, MemBytes: 1, MemCapacity: 1}}
	bx := plan(t, tensor.Shape{5, 8}, "[[0,1],[2,3]]", "S(0),S(1)", "S(0),B")
	got, err := TimeBoxing(c, bx)
	if err != nil {
		t.Fatal(err)
	}
	const S = 3 * 8 * 4
	if want := 1*a + S/2.0/b; len(got.Steps) != 1 || !near(got.TimeS, want) || got.Steps[0].Bytes != S {
		t.Fatalf("got %+v, want one step of S = %d bytes taking %g s", got, S, want)
	}
}

// TestTimeBoxingRefuses: a cluster whose links do not match the mesh.
func TestTimeBoxingRefuses(t *testing.T) {
	loop, _ := Preset("loopback")
	bx := plan(t, tensor.Shape{8, 8}, "[[0,1],[2,3]]", "S(0),S(1)", "B,B")
	_, err := TimeBoxing(loop, bx)
	want := "cluster loopback: links: 1 link for cpu:[[0, 1], [2, 3]], a 2-D mesh; give one link per mesh dim"
	if err == nil || err.Error() != want || !errors.Is(err, ErrMesh) {
		t.Fatalf("TimeBoxing(loopback, a 2-D boxing) = %v, want %q", err, want)
	}
	node, _ := Preset("h100-node")
	_, err = TimeBoxing(node, plan(t, tensor.Shape{16}, "16", "S(0)", "B"))
	want = "cluster h100-node: levels: it has 8 devices (8), and device 8 of the placement's 16 is past them"
	if err == nil || err.Error() != want || !errors.Is(err, ErrMesh) {
		t.Fatalf("TimeBoxing(h100-node, 16 devices) = %v, want %q", err, want)
	}
	two, _ := Preset("two-h100-nodes")
	if _, err := TimeBoxing(two, plan(t, tensor.Shape{8}, "4", "S(0)", "B")); err == nil || !errors.Is(err, ErrMesh) {
		t.Fatalf("TimeBoxing(two-h100-nodes, a 1-D boxing) = %v, want ErrMesh", err)
	}
	bad := plan(t, tensor.Shape{8}, "4", "S(0)", "B")
	bad.DType = "float64"
	if _, err := TimeBoxing(node, bad); err == nil || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("TimeBoxing of a float64 boxing = %v, want ErrUnsupported", err)
	}
}

// TestTimeBoxingMalformed: a boxing edited by hand whose steps do not fit
// its placement is an error, not a panic.
func TestTimeBoxingMalformed(t *testing.T) {
	c, _ := Preset("h100-node")
	for name, edit := range map[string]func(*sbp.Boxing){
		"mesh dim 3":  func(b *sbp.Boxing) { b.Steps[0].MeshDim = 3 },
		"mesh dim -1": func(b *sbp.Boxing) { b.Steps[0].MeshDim = -1 },
		"no ranks":    func(b *sbp.Boxing) { b.Steps[0].Ranks = nil },
		"no SBPs":     func(b *sbp.Boxing) { b.Steps[0].From = nil },
	} {
		b := plan(t, tensor.Shape{8}, "4", "S(0)", "B")
		edit(&b)
		if _, err := TimeBoxing(c, b); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: TimeBoxing = %v, want ErrUnsupported", name, err)
		}
	}
}
