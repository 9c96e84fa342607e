package viz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// TestDescribeWorkedExamples: the words for every kind of focus in every
// scene's worked example (and a few specs beside them), exactly.
func TestDescribeWorkedExamples(t *testing.T) {
	ex := func(scene string) Spec { s, _ := Example(scene); return s }
	spec := func(scene string, kv ...string) Spec { return example(scene, kv...) }
	dev := func(rank, under int) Focus { return Focus{Kind: FocusDevice, Rank: rank, Offset: under} }
	step := func(i int) Focus { return Focus{Kind: FocusStep, Offset: i} }
	for _, c := range []struct {
		spec  Spec
		step  int
		focus any // a Focus, or the string ParseFocus reads
		want  string
	}{
		{ex("expand"), 0, "out[2,1,2]", "out[2,1,2] reads x[8]"},
		{ex("expand"), 5, "x[5]", "x[5] is read by 2 output cells: out[1,0,2], out[1,1,2]"},
		{spec("expand", "shape", "1", "size", "20"), 0, "x[0]", "x[0] is read by 20 output cells: out[0], out[1], out[2], out[3], out[4], out[14], out[15], out[16], …"},
		{ex("repeat"), 0, "out[1,2,2]", "out[1,2,2] reads x[2]"},
		{ex("repeat"), 0, "x[1]", "x[1] is read by 6 output cells: out[0,1,0], out[0,1,1], out[0,1,2], out[1,1,0], out[1,1,1], out[1,1,2]"},
		{ex("binary"), 0, "out[2,1]", "out[2,1] reads a[2] and b[1]"},
		{ex("binary"), 0, Focus{Kind: FocusCell, Operand: "a", Index: []int{2, 0}}, "cell [2,0] of a reads a[2], for out[2,0]"},
		{ex("binary"), 0, Focus{Kind: FocusCell, Operand: "b", Index: []int{2, 1}}, "cell [2,1] of b reads b[1] (a stretched copy), for out[2,1]"},
		{ex("binary"), 0, "b[1]", "b[1] is read by 3 output cells: out[0,1], out[1,1], out[2,1]"},
		{ex("reduce"), 0, "out[0,1,0]", "out[0,1,0] sums x[4], x[5], x[6], x[7], x[16], x[17], x[18], x[19] (8 cells)"},
		{ex("reduce"), 2, Focus{Kind: FocusCell, Operand: "x", Index: []int{1, 2, 3}}, "cell [1,2,3] of x is x[23], 1 of the 8 cells out[0,2,0] sums"},
		{ex("reduce"), 0, "x[6]", "x[6] is read by 1 output cell: out[0,1,0]"},
		{spec("reduce", "shape", "4,3,5", "to", "1,3,1", "op", "max"), 0, "out[0,1,0]", "out[0,1,0] takes the max of x[5], x[6], x[7], x[8], x[9], x[20], x[21], x[22], … (20 cells)"},
		{ex("view"), 0, "out[1]", "out[1] reads x[17]"},
		{ex("view"), 1, "x[7]", "x[7] is read by 1 output cell: out[0]"},
		{ex("view"), 0, "x[0]", "x[0] is read by no output cell"},
		{ex("placement"), 0, "[3,5]", "[3,5] is on rank 0 (coord [0 0]) and rank 1 (coord [0 1]), each a shard [4 6] at rows 0–3, partial (sum)"},
		{ex("placement"), 3, "rank 2", "rank 2 (coord [1 0]) holds [4 6], rows 4–7, partial (sum)"},
		{spec("placement", "shape", "8,6,4", "sbp", "(S(0), S(2))", "placement", "[[0,1],[2,3]]"), 0, "[5,1,3]", "[5,1,3] is on rank 3 (coord [1 1]), shard [4 6 2] at axis 0 indices 4–7, axis 2 indices 2–3"},
		{spec("placement", "shape", "25,33", "sbp", "B", "placement", "10"), 0, "[1,2]", "[1,2] is on rank 0 (coord [0]), rank 1 (coord [1]), rank 2 (coord [2]), rank 3 (coord [3]), … (10 ranks), each a whole copy [25 33]"},
		{spec("placement", "shape", "8,6", "sbp", "P", "placement", "2"), 0, "rank 1", "rank 1 (coord [1]) holds [8 6], all of it, partial (sum)"},
		{spec("placement", "shape", "3,5", "sbp", "S(0)", "placement", "4"), 0, "rank 3", "rank 3 (coord [3]) holds [0 5], no rows"},
		{spec("placement", "shape", "7", "sbp", "S(0)", "placement", "3"), 0, "[4]", "[4] is on rank 1 (coord [1]), shard [2] at elements 3–4"},
		{ex("plan"), 0, "[0,0,0,0,1]", "[0,0,0,0,1] is on rank 1 (coord [1]), shard [2 4 3 4 1] at axis 4 index 1"},
		{ex("plan"), 1, "rank 0", "rank 0 (coord [0]) holds [2 4 3 4 1], axis 4 index 0"},
		{ex("boxing"), 0, "[13,5]", "[13,5] is on rank 2 (coord [2]), shard [6 33] at rows 13–18"},
		{ex("boxing"), 1, "[13,5]", "[13,5] is on rank 0 (coord [0]), shard [25 9] at columns 0–8"},
		{ex("boxing"), 1, "rank 1", "rank 1 (coord [1]) holds [25 8], columns 9–16"},
		{ex("program"), 0, step(0), "step 1: input x [16 8] as S(0)"},
		{ex("program"), 4, step(2), "step 3: y = matmul x w under S(0) x B -> S(0)"},
		{ex("program"), 4, dev(2, 0), "step 1: rank 2 holds x [4 8] as S(0)"},
		{ex("program"), 4, dev(2, 3), "step 4: rank 2 holds s [1 1] as P(sum), partial"},
		{spec("program", "src", programSrcs[1]), 3, step(2), "step 3: box w from S(0) to B: all-gather, 6.00 KiB"},
		{spec("program", "src", programSrcs[1]), 3, step(3), "step 4: y = matmul x w under S(0) x B -> S(0)"},
		{spec("program", "src", programSrcs[1]), 3, dev(1, 2), "step 3: rank 1 holds w@B [32 16] as B"},
		{spec("program", "src", programSrcs[1]), 9, step(9), "step 10 (backward): box grad_w.y from P(sum) to S(0): reduce-scatter, 6.00 KiB"},
		// On two-h100-nodes: a collective names its mesh dim, the link's α
		// and β and its time; an op its work on the slowest device and
		// its roofline; with the memory lines, what the devices hold.
		{timedSpecs[0], 9, step(6), "step 7 (backward): box w from (B, S(1)) to (B, B): all-gather, 4.00 KiB; all-gather across mesh dim 1 (2 devices; α 3.00 µs, β 450 GB/s): 3.00 µs; each device holds 9.00 KiB"},
		{timedSpecs[0], 9, step(8), "step 9 (backward): grad_w.y = matmul_t x grad_y under S(0) x S(0) -> P(sum); B x B -> B; 32.8 kFLOP and 8.00 KiB on the slowest device, memory-bound: 2.45 ns; each device holds 13.0 KiB"},
		{timedSpecs[0], 9, step(9), "step 10 (backward): box grad_w.y from (P(sum), B) to (B, S(1)): local-slice + all-reduce, 4.00 KiB; all-reduce across mesh dim 0 (2 devices; α 10.0 µs, β 50 GB/s): 20.0 µs; each device holds 12.0 KiB"},
		{timedSpecs[0], 9, dev(1, 7), "step 8: rank 1 holds grad_x.y [32 32] as (S(0), B); it holds 13.0 KiB in all (its peak: 13.0 KiB at step 8)"},
		{timedSpecs[1], 12, step(8), "step 9 (backward): box grad_y from (B, B) to (S(0), B): local-slice, 0 B; local: no link crossed, no time; each device holds 13.0 KiB"},
		{timedSpecs[1], 12, step(10), "step 11 (backward): box x from (S(0), B) to (B, B): all-gather, 16.0 KiB; all-gather across mesh dim 0 (2 devices; α 10.0 µs, β 50 GB/s): 10.1 µs; each device holds 21.0 KiB"},
	} {
		f, ok := c.focus.(Focus)
		if !ok {
			var err error
			if f, err = ParseFocus(c.focus.(string)); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Build(c.spec)
		if err != nil {
			t.Fatalf("%v: %v", c.spec, err)
		}
		got, err := s.Describe(c.step, f)
		if err != nil || got != c.want {
			t.Errorf("%v step %d: Describe(%v) = %q, %v; want %q", c.spec, c.step, f, got, err, c.want)
		}
	}
}

// TestDescribeErrors: a focus that names nothing is FrameFocus's error; a
// step out of range is an error too.
func TestDescribeErrors(t *testing.T) {
	for _, c := range []struct {
		scene string
		step  int
		focus Focus
	}{
		{"expand", 0, Focus{Kind: FocusCell, Operand: "out", Index: []int{4, 0, 0}}},
		{"expand", 0, Focus{Kind: FocusStorage, Operand: "x", Offset: 12}},
		{"expand", 0, Focus{Kind: FocusStorage, Operand: "b", Offset: 0}},
		{"expand", 0, Focus{Kind: FocusDevice, Rank: 0}},
		{"binary", 0, Focus{Kind: FocusCell, Operand: "x", Index: []int{0, 0}}},
		{"placement", 0, Focus{Kind: FocusDevice, Rank: 4}},
		{"boxing", 0, Focus{Kind: FocusCell, Operand: "global", Index: []int{25, 0}}},
		{"boxing", 0, Focus{Kind: FocusStorage, Operand: "x", Offset: 0}},
		{"program", 0, Focus{Kind: FocusStep, Offset: 99}},
		{"program", 0, Focus{Kind: FocusDevice, Rank: 9}},
		{"program", 0, Focus{Kind: FocusCell, Operand: "out", Index: []int{0}}},
	} {
		spec, _ := Example(c.scene)
		s, err := Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		_, want := s.FrameFocus(c.step, &c.focus, DefaultSize)
		got, err := s.Describe(c.step, c.focus)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%s: Describe(%v) = %q, %v; want FrameFocus's error %v", c.scene, c.focus, got, err, want)
		}
	}
	s, _ := Build(example("boxing", "shape", "25,33", "from", "S(0)", "to", "S(1)", "placement", "4"))
	for _, step := range []int{-1, s.Steps} {
		if got, err := s.Describe(step, Focus{Kind: FocusDevice, Rank: 0}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("boxing step %d: Describe = %q, %v; want a step out of range", step, got, err)
		}
	}
	p, _ := Build(example("program", "src", programSrcs[1]))
	if got, err := p.Describe(0, Focus{Kind: FocusDevice, Rank: 0, Offset: p.Steps}); err == nil {
		t.Errorf("program: a device under step %d of %d described as %q", p.Steps+1, p.Steps, got)
	}
}

// describeSpecs are the gallery's scenes and programs.
func describeSpecs() []Spec {
	specs := slices.Clone(gallerySpecs)
	for _, src := range programSrcs {
		specs = append(specs, example("program", "src", src))
	}
	specs = append(specs, timedSpecs...)
	for _, k := range Kinds() {
		specs = append(specs, k.Example)
	}
	return append(specs, example("reduce", "shape", "4,3,5", "to", "1,3,1", "op", "max"),
		example("placement", "shape", "25,33", "sbp", "B", "placement", "10"),
		example("placement", "shape", "8,6,4", "sbp", "(S(0), S(2))", "placement", "[[0,1],[2,3]]"))
}

// TestDescribeSaysWhatTheModelSays: for every hot region of every
// gallery scene, at its first, middle and last steps, Describe gives one
// line, and the line names the numbers the model gives for that focus:
// an output cell every offset IndexModel says it reads (up to the cut)
// and, for a reduce, their count; a storage element how many cells read
// it and the drawn readers (up to the cut); an operand's cell the offset
// its layout reads; a cell of a sharded tensor every rank sbp places it
// on, with its coordinate, its shard's shape and every split axis's
// range, and no other rank; a device its shard; a program's step what
// the plan says it does and sends.
func TestDescribeSaysWhatTheModelSays(t *testing.T) {
	described := map[string]int{}
	for _, spec := range describeSpecs() {
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		for _, step := range slices.Compact([]int{0, s.Steps / 2, s.Steps - 1}) {
			hots, err := s.Hots(step, DefaultSize)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hots {
				got, err := s.Describe(step, h.Focus)
				if err != nil || got == "" || strings.ContainsAny(got, "\n\r") {
					t.Fatalf("%v step %d: Describe(%v) = %q, %v; want one line", spec, step, h.Focus, got, err)
				}
				for _, want := range wantWords(t, s, step, h.Focus) {
					if !strings.Contains(got, want) {
						t.Errorf("%v step %d: Describe(%v) = %q, which does not say %q", spec, step, h.Focus, got, want)
					}
				}
				for _, not := range notWords(s, step, h.Focus) {
					if strings.Contains(got, not) {
						t.Errorf("%v step %d: Describe(%v) = %q names %q, which does not hold it", spec, step, h.Focus, got, not)
					}
				}
				described[spec.Scene+" "+h.Kind.String()+" "+h.Operand]++
			}
		}
	}
	for _, k := range Kinds() {
		for _, fk := range k.Focus {
			found := false
			for key := range described {
				found = found || strings.HasPrefix(key, k.Name+" "+fk.String()+" ")
			}
			if !found {
				t.Errorf("%s: no %s focus described", k.Name, fk)
			}
		}
	}
	for _, key := range []string{"binary cell a", "binary cell b", "reduce cell x", "placement cell global"} {
		if described[key] == 0 {
			t.Errorf("no %s described", key)
		}
	}
}

// wantWords are the pieces of text the words for f must hold, each from
// the scene's model (tensor's layouts, sbp's shards, the plan).
func wantWords(t *testing.T, s *Scene, step int, f Focus) []string {
	switch m := s.Model().(type) {
	case *IndexModel:
		return indexWords(t, m, f)
	case *ShardModel:
		sh := s.impl.(*shardScene)
		nd := sh.layouts[step]
		shards, err := sbp.Shards(m.Shape, sh.placement, nd)
		if err != nil {
			t.Fatal(err)
		}
		if step == s.Steps-1 { // the model's ranks are the last step's shards
			for i, r := range m.Ranks {
				if r.Rank != shards[i].Rank || !slices.Equal(r.Shape, shards[i].Shape) {
					t.Fatalf("%v: the model's rank %d holds %v, sbp's shard %v", s.Spec, r.Rank, r.Shape, shards[i].Shape)
				}
			}
		}
		var held []sbp.Shard
		for _, x := range shards {
			if f.Kind == FocusDevice && x.Rank == f.Rank || f.Kind == FocusCell && holds(x, f.Index) {
				held = append(held, x)
			}
		}
		var want []string
		for k, x := range held {
			if k < maxRanksListed {
				want = append(want, fmt.Sprintf("rank %d (coord %v)", x.Rank, x.Coord))
			}
			want = append(want, x.Shape.String())
			for _, x2 := range nd {
				if x2.Kind == sbp.Split {
					want = append(want, rangeWords(x.Lo[x2.Axis], x.Hi[x2.Axis]))
				}
			}
			if x.Partial {
				want = append(want, "partial")
			}
		}
		if len(held) > maxRanksListed {
			want = append(want, fmt.Sprintf("(%d ranks)", len(held)))
		}
		return want
	case *planner.Plan:
		if f.Kind == FocusStep {
			st := m.Steps[f.Offset]
			want := []string{fmt.Sprintf("step %d", f.Offset+1)}
			if s.Spec.Get("memory") == "show" {
				want = append(want, tensor.FormatBytes(slices.Max(st.HeldBytes)))
			}
			switch st.Kind {
			case planner.StepInput:
				return append(want, st.Name, st.Shape.String(), st.Sbp.String())
			case planner.StepBoxing:
				return append(append(want, st.Tensor, st.From.String(), st.To.String(), strings.Join(st.Collectives, " + "), tensor.FormatBytes(st.SendBytes)), boxingTimeWords(m, st)...)
			}
			if m.Cluster != nil {
				want = append(want, cluster.FormatFLOPs(st.FLOPs), tensor.FormatBytes(int64(st.MemBytes)), st.Bound+"-bound", cluster.FormatSeconds(st.TimeS))
			}
			return append(append(want, st.Name, st.Op, st.Signature.String()), st.Inputs...)
		}
		st := m.Steps[f.Offset]
		shards, _ := sbp.Shards(st.Shape, m.Program.Placement, st.Out())
		for _, x := range shards {
			if x.Rank == f.Rank {
				want := []string{fmt.Sprintf("step %d", f.Offset+1), fmt.Sprintf("rank %d", f.Rank), st.Name, x.Shape.String(), st.Out().String()}
				if x.Partial {
					want = append(want, "partial")
				}
				if s.Spec.Get("memory") == "show" {
					want = append(want, tensor.FormatBytes(st.HeldBytes[x.Position]))
				}
				return want
			}
		}
		t.Fatalf("%v: rank %d holds nothing at step %d", s.Spec, f.Rank, f.Offset+1)
	}
	return nil
}

// boxingTimeWords: what the words for a boxing on a cluster must name,
// from its BoxingTime: each collective that crosses a link, its mesh
// dim, the link's α and β and its time.
func boxingTimeWords(m *planner.Plan, st planner.Step) []string {
	if m.Cluster == nil {
		return nil
	}
	var want []string
	for _, t := range st.BoxingTime.Steps {
		if t.TimeS > 0 {
			want = append(want, string(t.Collective), fmt.Sprintf("mesh dim %d", t.MeshDim), "α "+cluster.FormatSeconds(t.Alpha), "β "+cluster.FormatRate(t.Beta), cluster.FormatSeconds(t.TimeS))
		}
	}
	return want
}

// indexWords: what an index scene's words must name, from IndexModel.
func indexWords(t *testing.T, m *IndexModel, f Focus) []string {
	name := func(r Read) string { return fmt.Sprintf("%s[%d]", r.Operand, r.Offset) }
	switch {
	case f.Kind == FocusCell && f.Operand == "out":
		for _, c := range m.Cells {
			if slices.Equal(c.Index, f.Index) {
				want := []string{"out[" + joinInts(f.Index) + "]"}
				for _, r := range c.Reads[:min(len(c.Reads), maxListed)] {
					want = append(want, name(r))
				}
				if m.Scene == "reduce" {
					want = append(want, fmt.Sprintf("(%d cell%s)", len(c.Reads), plural(len(c.Reads))))
				}
				return want
			}
		}
		t.Fatalf("%s: out%v is drawn but not in the model", m.Scene, f.Index)
	case f.Kind == FocusStorage:
		r := Read{f.Operand, f.Offset}
		var readers []string
		for _, c := range m.Cells {
			if slices.Contains(c.Reads, r) {
				readers = append(readers, "out["+joinInts(c.Index)+"]")
			}
		}
		if len(readers) == 0 {
			return []string{name(r) + " is read by "}
		}
		want := []string{name(r) + " is read by "}
		if n, _ := m.OutShape.NumElements(); n == len(m.Cells) { // nothing elided: the model lists every reader
			want = append(want, fmt.Sprintf("by %d output cell%s", len(readers), plural(len(readers))))
		}
		return append(want, readers[:min(len(readers), maxListed)]...)
	case f.Kind == FocusCell:
		l := m.Operands[f.Operand]
		off := l.Offset
		for d, i := range f.Index {
			off += i * l.Strides[d]
		}
		return []string{fmt.Sprintf("cell [%s] of %s", joinInts(f.Index), f.Operand), name(Read{f.Operand, off})}
	}
	return nil
}

// notWords are ranks the words must not name: those not holding a
// focused cell of a sharded tensor.
func notWords(s *Scene, step int, f Focus) []string {
	sh, ok := s.impl.(*shardScene)
	if !ok || f.Kind != FocusCell {
		return nil
	}
	shards, _ := sbp.Shards(sh.shape, sh.placement, sh.layouts[step])
	var out []string
	for _, x := range shards {
		if !holds(x, f.Index) {
			out = append(out, fmt.Sprintf("rank %d (", x.Rank))
		}
	}
	return out
}

func holds(sh sbp.Shard, idx []int) bool {
	for d, i := range idx {
		if i < sh.Lo[d] || i >= sh.Hi[d] {
			return false
		}
	}
	return true
}

// rangeWords is how the words spell [lo, hi) of an axis: "13–18", "13",
// or "no ".
func rangeWords(lo, hi int) string {
	switch hi - lo {
	case 0:
		return "no "
	case 1:
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi-1)
}
