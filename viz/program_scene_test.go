package viz

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

var programSrcs = []string{
	"placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; b = input 16 B; z = add y b; s = sum z 1,1; grad s",
	"placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s",
	"placement [[0,1],[2,3]]; x = input 8,6 (S(0), B); w = input 6,4 (B, S(1)); y = matmul x w; t = box y (B, B); m = max t 1,4; grad m",
	"placement 0-9; a = input 3,1 S(0); b = input 1,4 B; c = div a b; d = repeat c 2,1; e = expand d 2,6,4; grad e",
	// a batched matmul: shard shapes too long for one line go on two
	"placement 4; q = input 2,8,16 S(0); k = input 2,16,8 S(0); s = matmul q k; t = sum s 1,1,1; grad t",
}

// meshSrc is the gallery's 2-D mesh program: on two-h100-nodes the plan
// with the fewest bytes all-reduces w's gradient across the slow mesh
// dim (8.00 KiB in 23.0 µs), the fastest sends more over the fast one
// (20.0 KiB in 13.1 µs).
const meshSrc = "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"

// timedSpecs are program scenes on a cluster or with the memory lines:
// both costs of exact on the mesh, greedy on a 1-D placement, a mesh
// whose devices hold alike and a placement whose devices do not.
var timedSpecs = []Spec{
	example("program", "src", meshSrc, "strategy", "exact", "cluster", "two-h100-nodes", "cost", "bytes", "memory", "show"),
	example("program", "src", meshSrc, "strategy", "exact", "cluster", "two-h100-nodes", "memory", "show"),
	example("program", "src", programSrcs[1], "cluster", "loopback"),
	example("program", "src", programSrcs[2], "cluster", "tpu-v5e", "memory", "show"),
	example("program", "src", programSrcs[3], "memory", "show"),
}

// TestProgramSceneDrawsThePlan: what every frame draws is the plan: a
// column per step in view, hot as that step, naming its tensor and the SBP
// it leaves it in; under it each drawn device's row, hot as that rank and
// labelled with the shard sbp lays out for that SBP; a boxing's bar with
// its bytes; and the running total. A step not run yet shows only its
// number: what happens there is the learner's to predict.
func TestProgramSceneDrawsThePlan(t *testing.T) {
	for _, src := range programSrcs {
		for _, strategy := range []string{"greedy", "exact"} {
			spec := Spec{Scene: "program", Values: map[string]string{"src": src, "strategy": strategy}}
			s, err := Build(spec)
			if err != nil && strategy == "exact" && strings.Contains(err.Error(), "use --strategy greedy") && Blame(err, "") == "strategy" {
				continue // the exact search refused, as it must past its bound
			}
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			plan := s.Model().(*planner.Plan)
			if s.Steps != len(plan.Steps) {
				t.Fatalf("%d frames for %d steps", s.Steps, len(plan.Steps))
			}
			p := plan.Program.Placement
			var total int64
			for step := 0; step < s.Steps; step++ {
				f, err := s.Frame(step, DefaultSize)
				if err != nil {
					t.Fatal(err)
				}
				hots, _ := s.Hots(step, DefaultSize)
				texts := frameTexts(f)
				columns := map[int]Hot{}
				for _, h := range hots {
					if h.Kind == FocusStep && h.Operand != OverviewOperand {
						columns[h.Offset] = h
					}
				}
				if _, ok := columns[step]; !ok {
					t.Fatalf("%s: step %d's column is not drawn at its own step", src, step+1)
				}
				total += plan.Steps[step].SendBytes
				for i, col := range columns {
					st := plan.Steps[i]
					in := textsIn(f, col)
					if i > step { // not run yet: nothing of the plan is told there
						if want := []string{fmt.Sprint(i + 1), "?"}; !slices.Equal(in, want) {
							t.Errorf("%s step %d before it runs says %q, want only %q", src, i+1, in, want)
						}
						continue
					}
					want := st.Out().String()
					if st.Kind == planner.StepBoxing {
						want = "→ " + st.To.String()
					}
					if !slices.ContainsFunc(in, func(x string) bool { return strings.HasSuffix(x, want) }) {
						t.Errorf("%s step %d (%s %s): its column says %q, not its SBP %s", src, i+1, st.Kind, st.Name, in, want)
					}
					if running := "Σ " + tensor.FormatBytes(runningTotal(plan, i)); !slices.Contains(in, running) {
						t.Errorf("%s step %d: no running total %q in %q", src, i+1, running, in)
					}
					shards, _ := sbp.Shards(st.Shape, p, st.Out())
					for _, h := range hots {
						if h.Kind != FocusDevice || !inside(h, col) {
							continue
						}
						k := slices.IndexFunc(shards, func(sh sbp.Shard) bool { return sh.Rank == h.Rank })
						label := fmt.Sprintf("r%d %v", h.Rank, []int(shards[k].Shape))
						if got := textsIn(f, h); strings.Join(got, " ") != label && !slices.ContainsFunc(got, func(x string) bool { // one line, or the rank over the shape
							return x == label || strings.HasSuffix(label, strings.TrimSuffix(x, "…")) && strings.HasSuffix(x, "…")
						}) {
							t.Errorf("%s step %d: rank %d's row says %q, sbp's shard is %s", src, i+1, h.Rank, got, label)
						}
					}
					if st.Kind == planner.StepBoxing && st.SendBytes > 0 && !slices.Contains(texts, tensor.FormatBytes(st.SendBytes)) {
						t.Errorf("%s step %d: no bar labelled with its %d bytes", src, i+1, st.SendBytes)
					}
				}
			}
			if total != plan.TotalSendBytes {
				t.Errorf("%s: the steps send %d, the plan %d", src, total, plan.TotalSendBytes)
			}
		}
	}
}

func runningTotal(p *planner.Plan, i int) int64 {
	var t int64
	for _, st := range p.Steps[:i+1] {
		t += st.SendBytes
	}
	return t
}

func frameTexts(f Frame) []string {
	var out []string
	for _, it := range f.Items {
		if t, ok := it.(Text); ok {
			out = append(out, t.S)
		}
	}
	return out
}

// textsIn lists the texts whose anchor point lies in h.
func textsIn(f Frame, h Hot) []string {
	var out []string
	for _, it := range f.Items {
		if t, ok := it.(Text); ok && t.X >= h.X && t.X <= h.X+h.W && t.Y >= h.Y && t.Y <= h.Y+h.H {
			out = append(out, t.S)
		}
	}
	return out
}

func inside(h, outer Hot) bool {
	return h.X >= outer.X && h.X+h.W <= outer.X+outer.W && h.Y >= outer.Y && h.Y+h.H <= outer.Y+outer.H
}

// TestProgramSceneFocus: a step's focus names its signature and
// candidates in the report; a device's lists what it holds at every step;
// nothing else can be focused.
func TestProgramSceneFocus(t *testing.T) {
	s, err := Build(Spec{Scene: "program", Values: map[string]string{"src": programSrcs[1]}})
	if err != nil {
		t.Fatal(err)
	}
	plan := s.Model().(*planner.Plan)
	k := slices.IndexFunc(plan.Steps, func(st planner.Step) bool { return st.Kind == planner.StepOp && st.Name == "y" })
	r := s.Report(0, &Focus{Kind: FocusStep, Offset: k}).String()
	for _, want := range []string{"focus", "signature S(0) x B -> S(0)", "S(1) x S(0): 6.00 KiB", "every boxing the planner inserted"} {
		if !strings.Contains(r, want) {
			t.Errorf("the report of step %d has no %q:\n%s", k+1, want, r)
		}
	}
	// Where the two plans differ (model parallelism: greedy splits
	// grad_y as y is, exact lays it out whole), the report says so.
	mp, err := Build(Spec{Scene: "program", Values: map[string]string{"src": "placement 4; x = input 64,32 B; w = input 32,16 S(1); y = matmul x w; s = sum y 1,1; grad s"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := mp.Report(0, nil).String(); !strings.Contains(r, "where greedy and exact differ") {
		t.Errorf("model parallelism's report has no \"where greedy and exact differ\":\n%s", r)
	}
	r = s.Report(0, &Focus{Kind: FocusDevice, Rank: 2}).String()
	if !strings.Contains(r, "rank 2 holds, step by step:") || !strings.Contains(r, "x [16 32] of [64 32] as S(0)") {
		t.Errorf("rank 2's focus:\n%s", r)
	}
	for _, f := range []Focus{{Kind: FocusStep, Offset: len(plan.Steps)}, {Kind: FocusDevice, Rank: 9}, {Kind: FocusCell, Operand: "out", Index: []int{0}}} {
		if _, err := s.FrameFocus(0, &f, DefaultSize); err == nil {
			t.Errorf("focus %v: no error", f)
		}
	}
}

// TestProgramSceneElides: a long program on a large mesh draws a window of
// columns around the step and a few devices, and says how many it leaves out.
func TestProgramSceneElides(t *testing.T) {
	var b strings.Builder
	b.WriteString("placement 0-63; x = input 128,8 S(0); w = input 8,8 B")
	prev := "x"
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "; h%d = matmul %s w", i, prev)
		prev = fmt.Sprintf("h%d", i)
	}
	fmt.Fprintf(&b, "; s = sum %s 1,1; grad s", prev)
	s, err := Build(Spec{Scene: "program", Values: map[string]string{"src": b.String()}})
	if err != nil {
		t.Fatal(err)
	}
	mid := s.Steps / 2
	f, err := s.Frame(mid, DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(frameTexts(f), "\n")
	for _, want := range []string{"earlier step(s)", "later step(s)", "more"} {
		if !strings.Contains(all, want) {
			t.Errorf("the frame at step %d of %d says no %q", mid+1, s.Steps, want)
		}
	}
	hots, _ := s.Hots(mid, DefaultSize)
	devices := 0
	for _, h := range hots {
		if h.Kind == FocusDevice {
			devices++
		}
	}
	if devices == 0 || devices > 8*20 {
		t.Errorf("%d device rows drawn", devices)
	}
}

// timeBars are the bars drawTimes draws: the rects in a step's time's
// marks whose bottoms lie on the lowest such edge (the legend's marks
// sit higher, by the title).
func timeBars(f Frame) []Rect {
	var marks []Rect
	base := 0.0
	for _, it := range f.Items {
		if r, ok := it.(Rect); ok && (r.Fill == ComputeInk || r.Fill == CommInk) {
			marks = append(marks, r)
			base = max(base, r.Y+r.H)
		}
	}
	return slices.DeleteFunc(marks, func(r Rect) bool { return r.Y+r.H != base })
}

// TestProgramSceneOnAClusterDrawsTime: on a cluster, under every column
// run so far whose step takes time there is one bar, in the mark of its
// kind (an op's compute solid, a boxing's communication hatched), its
// height the step's time on one scale for all, its time written over
// it; the running time is under the running bytes, the legend names
// both marks, and the title gives the plan's time and its cluster. At a
// laptop's and a phone's widths alike.
func TestProgramSceneOnAClusterDrawsTime(t *testing.T) {
	for _, spec := range timedSpecs {
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		plan := s.Model().(*planner.Plan)
		if plan.Cluster == nil {
			continue
		}
		if want := cluster.FormatSeconds(plan.Timing.TimeS) + " on " + plan.Cluster.Name; !strings.HasSuffix(s.Title, want) {
			t.Errorf("%v: title %q does not end in %q", spec, s.Title, want)
		}
		for _, sz := range []Size{DefaultSize, {390, 633}} {
			for _, step := range []int{s.Steps / 2, s.Steps - 1} {
				f, err := s.Frame(step, sz)
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("%v at %v, step %d", spec.Get("cluster"), sz, step+1)
				texts := frameTexts(f)
				for _, want := range []string{"compute", "communication"} {
					if !slices.Contains(texts, want) {
						t.Errorf("%s: no legend %q", where, want)
					}
				}
				hots, _ := s.Hots(step, sz)
				bars := timeBars(f)
				perSecond := 0.0 // the bars' scale, from the tallest drawn
				for _, b := range bars {
					perSecond = max(perSecond, b.H)
				}
				longest := 0.0 // the longest step drawn (a bar is at least 2 px)
				for i, st := range plan.Steps[:step+1] {
					if _, ok := columnHot(hots, i); ok {
						longest = max(longest, st.TimeS)
					}
				}
				perSecond /= longest
				var running float64
				for i, st := range plan.Steps[:step+1] {
					running += st.TimeS
					col, ok := columnHot(hots, i)
					if !ok {
						continue // out of the window
					}
					want := "Σ " + cluster.FormatSeconds(running)
					if running == 0 {
						want = "Σ 0 s"
					}
					if in := textsIn(f, col); !slices.Contains(in, want) {
						t.Errorf("%s: step %d says %q, no running time %q", where, i+1, in, want)
					}
					var under []Rect
					for _, b := range bars {
						if b.X >= col.X && b.X+b.W <= col.X+col.W {
							under = append(under, b)
						}
					}
					if st.TimeS == 0 || st.Kind == planner.StepInput {
						if len(under) != 0 {
							t.Errorf("%s: step %d takes no time but has %d bars", where, i+1, len(under))
						}
						continue
					}
					if len(under) != 1 {
						t.Errorf("%s: step %d (%s, %s) has %d bars, want 1", where, i+1, st.Kind, cluster.FormatSeconds(st.TimeS), len(under))
						continue
					}
					b := under[0]
					if want := timeMark(st.Kind, 0, 0, 0, 0); b.Fill != want.Fill || b.Hatch != want.Hatch {
						t.Errorf("%s: step %d, a %s, drawn as %+v", where, i+1, st.Kind, b)
					}
					if want := max(2, perSecond*st.TimeS); math.Abs(b.H-want) > 0.01 {
						t.Errorf("%s: step %d's bar is %.2f px for %s, want %.2f", where, i+1, b.H, cluster.FormatSeconds(st.TimeS), want)
					}
					if !slices.Contains(texts, cluster.FormatSeconds(st.TimeS)) {
						t.Errorf("%s: step %d's bar has no label %s", where, i+1, cluster.FormatSeconds(st.TimeS))
					}
				}
			}
		}
	}
}

// columnHot is step i's column, if the frame draws it.
func columnHot(hots []Hot, i int) (Hot, bool) {
	for _, h := range hots {
		if h.Kind == FocusStep && h.Offset == i && h.Operand != OverviewOperand {
			return h, true
		}
	}
	return Hot{}, false
}

// TestProgramSceneDrawsMemory: with the memory lines, each group of
// devices that hold alike at every step is one line through the
// columns run so far, at heights in proportion to what they hold
// (HeldBytes, one scale), named under the chart with its peak so far and
// the step it is reached at; devices that hold differently are
// different lines. Without memory show nor a cluster nothing of it is
// drawn.
func TestProgramSceneDrawsMemory(t *testing.T) {
	uneven := "placement 3; x = input 10,4 S(0); w = input 4,4 B; y = matmul x w; s = sum y 1,1; grad s"
	for _, c := range []struct {
		src   string
		names []string
	}{
		{meshSrc, []string{"r0–r3"}},
		{uneven, []string{"r0", "r1–r2"}},
	} {
		s, err := Build(example("program", "src", c.src, "memory", "show"))
		if err != nil {
			t.Fatal(err)
		}
		plan := s.Model().(*planner.Plan)
		for _, step := range []int{2, s.Steps - 1} {
			f, err := s.Frame(step, DefaultSize)
			if err != nil {
				t.Fatal(err)
			}
			texts := frameTexts(f)
			for k, name := range c.names {
				pos := slices.Index(plan.Program.Placement.Ranks(), []int{0, 1}[k])
				at, most := 0, int64(-1)
				for i, st := range plan.Steps[:step+1] {
					if st.HeldBytes[pos] > most {
						at, most = i, st.HeldBytes[pos]
					}
				}
				peak := "peak"
				if step < s.Steps-1 {
					peak = "peak so far"
				}
				if want := fmt.Sprintf("%s %s %s at step %d", name, peak, tensor.FormatBytes(most), at+1); !slices.Contains(texts, want) {
					t.Errorf("%s at step %d: no %q in %q", c.src, step+1, want, texts)
				}
			}
			// Every segment's ends, against what its group holds there (the
			// group of the device whose colour it has, the column whose
			// centre it is at): y = base − k·bytes for one base and one k.
			hots, _ := s.Hots(step, DefaultSize)
			type point struct{ y, b float64 }
			var points []point
			for _, it := range f.Items {
				l, ok := it.(Line)
				if !ok || l.Width != 2.5 {
					continue
				}
				pos := slices.IndexFunc(plan.Program.Placement.Ranks(), func(r int) bool { return DeviceColor(slices.Index(plan.Program.Placement.Ranks(), r)) == l.Color })
				for _, end := range [][2]float64{{l.X1, l.Y1}, {l.X2, l.Y2}} {
					i := slices.IndexFunc(hots, func(h Hot) bool { return h.Kind == FocusStep && h.X+h.W/2 == end[0] })
					if pos < 0 || i < 0 || hots[i].Offset > step {
						t.Fatalf("%s at step %d: a memory line at x %.1f in %v is no group's at a step run", c.src, step+1, end[0], l.Color)
					}
					points = append(points, point{end[1], float64(plan.Steps[hots[i].Offset].HeldBytes[pos])})
				}
			}
			if len(points) == 0 {
				t.Fatalf("%s at step %d: no memory lines", c.src, step+1)
			}
			lo := slices.MinFunc(points, func(a, b point) int { return cmp.Compare(a.b, b.b) })
			hi := slices.MaxFunc(points, func(a, b point) int { return cmp.Compare(a.b, b.b) })
			k := 1.0 // px a byte; any, where every point holds alike
			if hi.b > lo.b {
				k = (lo.y - hi.y) / (hi.b - lo.b)
			}
			for _, p := range points {
				if want := lo.y - k*(p.b-lo.b); k <= 0 || math.Abs(p.y-want) > 0.01 {
					t.Errorf("%s at step %d: %d bytes drawn at y %.2f, want %.2f (%.4g px a byte)", c.src, step+1, int64(p.b), p.y, want, k)
				}
			}
		}
	}
	plain, _ := Build(example("program", "src", meshSrc))
	f, _ := plain.Frame(plain.Steps-1, DefaultSize)
	for _, x := range frameTexts(f) {
		if strings.Contains(x, "what each device holds") || strings.Contains(x, "each step's time") {
			t.Errorf("neither a cluster nor memory show, yet the frame says %q", x)
		}
	}
}

// TestProgramOverview: a program of more steps than columns, written
// with module paths in its comments as the importer writes them, gets
// the overview: its caption, a hot slice for every pixel column whose
// focus jumps (OverviewOperand) and covers every step in order, the
// layers named on it (h.0, h.1), and under the columns each run of one
// module's steps labelled with its path. Each step's statement is its
// own, a boxing's its op's, a backward op's the forward statement whose
// gradient it computes.
func TestProgramOverview(t *testing.T) {
	var b strings.Builder
	b.WriteString("placement 4\nx = input 64,32 S(0)  # example x\n")
	prev := "x"
	for l := range 4 {
		fmt.Fprintf(&b, "w%d = input 32,32 B  # h.%d.fc.weight\n", l, l)
		for k := range 8 {
			name := fmt.Sprintf("h%d_%d", l, k)
			fmt.Fprintf(&b, "%s = matmul %s w%d  # h.%d.fc\n", name, prev, l, l)
			prev = name
			name = fmt.Sprintf("a%d_%d", l, k)
			fmt.Fprintf(&b, "%s = tanh %s  # h.%d.act\n", name, prev, l)
			prev = name
		}
	}
	fmt.Fprintf(&b, "s = sum %s 1,1  # loss\ngrad s\n", prev)
	s, err := Build(Spec{Scene: "program", Values: map[string]string{"src": b.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps < overviewMinSteps {
		t.Fatalf("%d steps: the test wants an overview", s.Steps)
	}
	f, err := s.Frame(3, DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	texts := frameTexts(f)
	for _, want := range []string{fmt.Sprintf("all %d steps, bytes each step sends: the box marks the columns below; click to jump", s.Steps), "h.0", "h.1", "forward", "h.0.fc"} {
		if !slices.Contains(texts, want) {
			t.Errorf("the frame says no %q: %q", want, texts)
		}
	}
	hots, _ := s.Hots(3, DefaultSize)
	last := -1
	for _, h := range hots {
		if h.Operand != OverviewOperand {
			continue
		}
		if h.Kind != FocusStep || h.Offset < last {
			t.Fatalf("an overview slice %+v after step %d", h.Focus, last)
		}
		last = h.Offset
	}
	if last < s.Steps-2 {
		t.Errorf("the overview's slices reach step %d of %d", last, s.Steps)
	}
	plan := s.Model().(*planner.Plan)
	lines := strings.Split(ProgramLines(b.String()), "\n")
	for i, st := range plan.Steps {
		k := s.Statement(i)
		if k < 0 || k >= len(lines) {
			t.Fatalf("step %d (%s): statement %d", i, st.Name, k)
		}
		line := strings.SplitN(lines[k], "#", 2)[0]
		switch {
		case st.Kind == planner.StepOp && st.Pass == graph.Forward:
			if !strings.HasPrefix(line, st.Name+" = ") {
				t.Errorf("step %d, %s, is on line %q", i, st.Name, line)
			}
		case st.Kind == planner.StepOp && st.Of != "":
			if !strings.HasPrefix(line, st.Of+" = ") {
				t.Errorf("backward step %d, %s (of %s), is on line %q", i, st.Name, st.Of, line)
			}
		}
	}
	if s.Statement(-1) != -1 || s.Statement(s.Steps) != -1 {
		t.Errorf("out of range: %d, %d", s.Statement(-1), s.Statement(s.Steps))
	}
}
