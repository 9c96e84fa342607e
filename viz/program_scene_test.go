package viz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

var programSrcs = []string{
	"placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; b = input 16 B; z = add y b; s = sum z 1,1; grad s",
	"placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s",
	"placement [[0,1],[2,3]]; x = input 8,6 (S(0), B); w = input 6,4 (B, S(1)); y = matmul x w; t = box y (B, B); m = max t 1,4; grad m",
	"placement 0-9; a = input 3,1 S(0); b = input 1,4 B; c = div a b; d = repeat c 2,1; e = expand d 2,6,4; grad e",
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
			plan := s.Model().(*program.Plan)
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
					if h.Kind == FocusStep {
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
					want := st.Out()
					if st.Kind == program.StepBoxing {
						want = "→ " + st.To
					}
					if !slices.ContainsFunc(in, func(x string) bool { return strings.HasSuffix(x, want) }) {
						t.Errorf("%s step %d (%s %s): its column says %q, not its SBP %s", src, i+1, st.Kind, st.Name, in, want)
					}
					if running := "Σ " + tensor.FormatBytes(runningTotal(plan, i)); !slices.Contains(in, running) {
						t.Errorf("%s step %d: no running total %q in %q", src, i+1, running, in)
					}
					nd, _ := sbp.ParseNd(st.Out())
					shards, _ := sbp.Shards(st.Shape, p, nd)
					for _, h := range hots {
						if h.Kind != FocusDevice || !inside(h, col) {
							continue
						}
						k := slices.IndexFunc(shards, func(sh sbp.Shard) bool { return sh.Rank == h.Rank })
						label := fmt.Sprintf("r%d %v", h.Rank, []int(shards[k].Shape))
						if got := textsIn(f, h); !slices.ContainsFunc(got, func(x string) bool {
							return x == label || strings.HasSuffix(label, strings.TrimSuffix(x, "…")) && strings.HasSuffix(x, "…")
						}) {
							t.Errorf("%s step %d: rank %d's row says %q, sbp's shard is %s", src, i+1, h.Rank, got, label)
						}
					}
					if st.Kind == program.StepBoxing && st.SendBytes > 0 && !slices.Contains(texts, tensor.FormatBytes(st.SendBytes)) {
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

func runningTotal(p *program.Plan, i int) int64 {
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
	plan := s.Model().(*program.Plan)
	k := slices.IndexFunc(plan.Steps, func(st program.Step) bool { return st.Kind == program.StepOp && st.Name == "y" })
	r := s.Report(0, &Focus{Kind: FocusStep, Offset: k}).String()
	for _, want := range []string{"focus", "signature S(0) x B -> S(0)", "S(1) x S(0): 6.00 KiB", "where greedy and exact differ", "every boxing the planner inserted"} {
		if !strings.Contains(r, want) {
			t.Errorf("the report of step %d has no %q:\n%s", k+1, want, r)
		}
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
