package sbp

import (
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// OneFlow's boxing cases: the collective, every device's shard before and
// after, and the bytes each sends and receives (float32: 4 bytes).
func TestBoxingPlans(t *testing.T) {
	for _, c := range []struct {
		shape      tensor.Shape
		placement  string
		from, to   string
		collective string
		ranks      string // per device: before -> after send/recv
	}{
		{tensor.Shape{12, 12}, "2", "S(0)", "B", "all-gather",
			"[6 12]->[12 12] 288/288 [6 12]->[12 12] 288/288"},
		{tensor.Shape{12, 12}, "2", "P", "B", "all-reduce",
			"[12 12]->[12 12] 576/576 [12 12]->[12 12] 576/576"},
		{tensor.Shape{12, 12}, "3", "B", "S(1)", "local-slice",
			"[12 12]->[12 4] 0/0 [12 12]->[12 4] 0/0 [12 12]->[12 4] 0/0"},
		{tensor.Shape{12, 12}, "2", "B", "P", "local-zero",
			"[12 12]->[12 12] 0/0 [12 12]->[12 12] 0/0"},
		{tensor.Shape{12, 12}, "2", "S(1)", "P", "local-pad",
			"[12 6]->[12 12] 0/0 [12 6]->[12 12] 0/0"},
		{tensor.Shape{12, 12}, "2", "P(sum)", "P(max)", "all-reduce + local-zero",
			"[12 12]->[12 12] 576/576 [12 12]->[12 12] 576/576"},
		{tensor.Shape{18, 24}, "3", "P", "S(1)", "reduce-scatter",
			"[18 24]->[18 8] 1152/1152 [18 24]->[18 8] 1152/1152 [18 24]->[18 8] 1152/1152"},
		{tensor.Shape{18, 24}, "3", "S(0)", "S(1)", "all-to-all",
			"[6 24]->[18 8] 384/384 [6 24]->[18 8] 384/384 [6 24]->[18 8] 384/384"},
		{tensor.Shape{12, 18, 24}, "4", "S(2)", "S(0)", "all-to-all",
			"[12 18 6]->[3 18 24] 3888/3888 [12 18 6]->[3 18 24] 3888/3888 [12 18 6]->[3 18 24] 3888/3888 [12 18 6]->[3 18 24] 3888/3888"},
		{tensor.Shape{12, 18, 24}, "4", "S(2)", "S(2)", "none",
			"[12 18 6]->[12 18 6] 0/0 [12 18 6]->[12 18 6] 0/0 [12 18 6]->[12 18 6] 0/0 [12 18 6]->[12 18 6] 0/0"},
		// Uneven: 25 rows are 7,6,6,6 and 33 columns 9,8,8,8.
		{tensor.Shape{25, 33}, "4", "S(0)", "S(1)", "all-to-all",
			"[7 33]->[25 9] 672/648 [6 33]->[25 8] 600/608 [6 33]->[25 8] 600/608 [6 33]->[25 8] 600/608"},
		{tensor.Shape{13, 17}, "4", "S(1)", "B", "all-gather",
			"[13 5]->[13 17] 780/624 [13 4]->[13 17] 624/676 [13 4]->[13 17] 624/676 [13 4]->[13 17] 624/676"},
		{tensor.Shape{13, 17}, "4", "P", "S(0)", "reduce-scatter",
			"[13 17]->[4 17] 612/816 [13 17]->[3 17] 680/612 [13 17]->[3 17] 680/612 [13 17]->[3 17] 680/612"},
		{tensor.Shape{8, 0, 4}, "4", "S(0)", "S(1)", "all-to-all",
			"[2 0 4]->[8 0 4] 0/0 [2 0 4]->[8 0 4] 0/0 [2 0 4]->[8 0 4] 0/0 [2 0 4]->[8 0 4] 0/0"},
		{tensor.Shape{8, 0, 4}, "4", "P", "B", "all-reduce",
			"[8 0 4]->[8 0 4] 0/0 [8 0 4]->[8 0 4] 0/0 [8 0 4]->[8 0 4] 0/0 [8 0 4]->[8 0 4] 0/0"},
		// A 2-D mesh: each mesh dim gathers in turn, the last first.
		{tensor.Shape{16, 32}, "[[0,1],[2,3]]", "(S(0), S(1))", "(B, B)", "all-gather + all-gather",
			"[8 16]->[16 32] 1536/1536 [8 16]->[16 32] 1536/1536 [8 16]->[16 32] 1536/1536 [8 16]->[16 32] 1536/1536"},
		{tensor.Shape{16, 32}, "[[0,1],[2,3]]", "(S(0), S(1))", "(S(0), B)", "all-gather",
			"[8 16]->[8 32] 512/512 [8 16]->[8 32] 512/512 [8 16]->[8 32] 512/512 [8 16]->[8 32] 512/512"},
		{tensor.Shape{16, 32}, "[[0,1],[2,3]]", "(S(0), S(1))", "(S(1), S(0))", "all-gather + all-gather + local-slice + local-slice",
			"[8 16]->[8 16] 1536/1536 [8 16]->[8 16] 1536/1536 [8 16]->[8 16] 1536/1536 [8 16]->[8 16] 1536/1536"},
		{tensor.Shape{16, 32}, "[[0,1],[2,3]]", "(S(0), S(1))", "(P, S(1))", "local-pad",
			"[8 16]->[16 16] 0/0 [8 16]->[16 16] 0/0 [8 16]->[16 16] 0/0 [8 16]->[16 16] 0/0"},
	} {
		p, err := ParsePlacement(c.placement)
		if err != nil {
			t.Fatal(err)
		}
		from, _ := ParseNd(c.from)
		to, _ := ParseNd(c.to)
		b, err := PlanBoxing(c.shape, tensor.Float32, p, from, to)
		if err != nil {
			t.Errorf("%v %s -> %s on %s: %v", c.shape, c.from, c.to, c.placement, err)
			continue
		}
		got := ""
		for i, r := range b.Ranks {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%v->%v %d/%d", r.Before, r.After, r.SendBytes, r.RecvBytes)
		}
		if b.Collective != c.collective || got != c.ranks {
			t.Errorf("%v %s -> %s on %s:\n got %s: %s\nwant %s: %s", c.shape, c.from, c.to, c.placement, b.Collective, got, c.collective, c.ranks)
		}
	}
}

// Running each plan moves the data it says: the boxed tensor gathers to
// the same full tensor.
func TestBoxingRuns(t *testing.T) {
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{13, 17})
	four, _ := Devices(4)
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	for _, c := range []struct {
		p        Placement
		from, to string
	}{
		{four, "S(0)", "S(1)"}, {four, "P", "S(0)"}, {four, "S(1)", "P(max)"}, {four, "B", "P(min)"},
		{mesh, "(S(0), S(1))", "(S(1), S(0))"}, {mesh, "(S(0), S(0))", "(B, S(1))"}, {mesh, "(P, S(1))", "(S(0), P)"},
	} {
		from, _ := ParseNd(c.from)
		to, _ := ParseNd(c.to)
		g, err := Scatter(tensor.CPU{}, x, c.p, from)
		if err != nil {
			t.Fatal(err)
		}
		boxed, plan, err := g.Box(to)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c.from, c.to, err)
		}
		for i, sh := range boxed.Shards() {
			if !boxed.Local(i).Shape().Equal(plan.Ranks[i].After) || !sh.Shape.Equal(plan.Ranks[i].After) {
				t.Errorf("%s -> %s: device %d holds %v, plan says %v", c.from, c.to, i, boxed.Local(i).Shape(), plan.Ranks[i].After)
			}
		}
		full, err := boxed.Full()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(full.Float64s()) != fmt.Sprint(x.Float64s()) {
			t.Errorf("%s -> %s on %v: gathered %v", c.from, c.to, c.p, full.Float64s()[:20])
		}
	}
}

// A boxing costs a few allocations however many devices and steps it
// has (the planner asks for thousands a plan), and the slices it hands
// out share buffers only capped: an append to one never writes into
// another's.
func TestBoxingAllocations(t *testing.T) {
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	from, _ := ParseNd("(S(0), S(1))")
	to, _ := ParseNd("(S(1), S(0))") // four steps: gather both mesh dims, slice both
	shape := tensor.Shape{16, 32}
	if n := testing.AllocsPerRun(20, func() { PlanBoxing(shape, tensor.Float32, mesh, from, to) }); n > 10 {
		t.Errorf("PlanBoxing %v %v -> %v on %v: %.0f allocations, want at most 10", shape, from, to, mesh, n)
	}
	b, err := PlanBoxing(shape, tensor.Float32, mesh, from, to)
	if err != nil {
		t.Fatal(err)
	}
	capped := func(what string, s []int) {
		if cap(s) != len(s) {
			t.Errorf("%s %v: cap %d, want its length %d", what, s, cap(s), len(s))
		}
	}
	capped("shape", b.Shape)
	for _, nd := range []NdSbp{b.From, b.To} {
		if cap(nd) != len(nd) {
			t.Errorf("layout %v: cap %d, want its length %d", nd, cap(nd), len(nd))
		}
	}
	ranks := append([]Traffic{}, b.Ranks...)
	for _, st := range b.Steps {
		ranks = append(ranks, st.Ranks...)
	}
	for _, r := range ranks {
		capped("coord", r.Coord)
		capped("before", r.Before)
		capped("after", r.After)
	}
	shards, err := Shards(shape, mesh, from)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		for _, s := range [][]int{sh.Coord, sh.Lo, sh.Hi, sh.Shape, sh.Stride} {
			capped("shard", s)
		}
	}
}
