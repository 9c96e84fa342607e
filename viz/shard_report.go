package viz

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// What a shard scene lights: the devices (by their place in the
// placement) whose shards stand out while the others are dimmed, and the
// focused cell of the global tensor. A step that walks the devices lights
// its device; a focused device or a focused global cell (its owners)
// takes over.
type shardLight struct {
	lit  map[int]bool // positions lit; nil lights none (and dims none)
	cell []int        // the focused global cell, or nil
}

func (s *shardScene) light(step int, f *Focus, shards []sbp.Shard) shardLight {
	var lt shardLight
	if s.focus[step] >= 0 {
		lt.lit = map[int]bool{s.focus[step]: true}
	}
	if f == nil || s.checkFocus(*f) != nil {
		return lt
	}
	lt.lit = map[int]bool{}
	switch f.Kind {
	case FocusDevice:
		lt.lit[slices.Index(s.placement.Ranks(), f.Rank)] = true
	case FocusCell:
		lt.cell = f.Index
		for _, o := range owners(shards, f.Index) {
			lt.lit[shards[o].Position] = true
		}
	}
	return lt
}

// checkFocus accepts a device of the placement or a cell of the global
// tensor.
func (s *shardScene) checkFocus(f Focus) error {
	switch {
	case f.Kind == FocusDevice:
		if !slices.Contains(s.placement.Ranks(), f.Rank) {
			return fmt.Errorf("viz: focus on rank %d: the placement %v has ranks %v", f.Rank, s.placement, s.placement.Ranks())
		}
		return nil
	case f.Kind == FocusCell && f.Operand == "global":
		return inShape("global", s.shape, f.Index)
	}
	return fmt.Errorf("viz: %s: nothing to focus on as %s %q %v", s.spec.Scene, f.Kind, f.Operand, f.Index)
}

// focusLines say what the focus holds: a device's shard, or every rank
// holding a global cell and the local index there.
func (s *shardScene) focusLines(f *Focus, shards []sbp.Shard) []string {
	if f == nil || s.checkFocus(*f) != nil {
		return nil
	}
	if f.Kind == FocusDevice {
		return shardLines(shards[slices.Index(s.placement.Ranks(), f.Rank)])
	}
	own := owners(shards, f.Index)
	lines := []string{fmt.Sprintf("global %v is held by %d rank%s", f.Index, len(own), plural(len(own)))}
	for _, o := range own {
		sh := shards[o]
		local := make([]int, len(f.Index))
		for d, i := range f.Index {
			local[d] = i - sh.Lo[d]
		}
		l := fmt.Sprintf("rank %d %v at local %v", sh.Rank, sh.Coord, local)
		if sh.Partial {
			l += ", partial"
		}
		lines = append(lines, l)
	}
	return lines
}

// report: every rank's shard at the step (sbp's shards), boxing's
// collectives with every rank's bytes (sbp's plan), plan's per-rank
// rewrite, the step's caption and the focus. With l.HideAnswers, the
// ranges each rank holds (its rewrite's output range too), the captions
// that name a shard's range and who holds the focus say Hidden or "?";
// the shards' shapes stay, as the drawing shows them.
func (s *shardScene) report(step int, l Look) Report {
	f := l.Focus
	hide := func(v string) string {
		if l.HideAnswers {
			return "?"
		}
		return v
	}
	nd := s.layouts[step]
	shards, err := sbp.Shards(s.shape, s.placement, nd)
	if err != nil {
		return Report{Sections: []Section{{Title: "shards", Lines: []string{err.Error()}}}}
	}
	table := [][]string{{"rank", "coord", "sbp", "ranges", "shape", "partial", "bytes"}}
	for _, sh := range shards {
		partial := ""
		if sh.Partial {
			partial = "P(" + partialOp([]sbp.NdSbp{nd}) + ")"
		}
		bytes, _ := tensor.ResultBytes(tensor.Float32, sh.Shape)
		table = append(table, []string{fmt.Sprint(sh.Rank), fmt.Sprint(sh.Coord), nd.String(), hide(FormatRanges(shardRanges(sh))), sh.Shape.String(), partial, fmt.Sprint(bytes)})
	}
	r := Report{Sections: []Section{{Title: fmt.Sprintf("float32 %v as %v on %v", s.shape, nd, s.placement), Table: table}}}
	if s.boxing != nil {
		for k, st := range s.boxing.Steps {
			t := [][]string{{"rank", "coord", "before", "after", "send B", "recv B"}}
			for _, tr := range st.Ranks {
				t = append(t, []string{fmt.Sprint(tr.Rank), fmt.Sprint(tr.Coord), tr.Before.String(), tr.After.String(), fmt.Sprint(tr.SendBytes), fmt.Sprint(tr.RecvBytes)})
			}
			r.Sections = append(r.Sections, Section{
				Title: fmt.Sprintf("boxing step %d: %s along mesh dim %d", k+1, st.Collective, st.MeshDim),
				Lines: []string{fmt.Sprintf("%v → %v", st.From, st.To)},
				Table: t,
			})
		}
	}
	if s.plan != nil {
		t := [][]string{{"rank", "coord", "in", "in strides", "b", "out", "out strides", "out range", "partial"}}
		for _, rp := range s.plan.Ranks {
			b := ""
			if rp.BShape != nil {
				b = rp.BShape.String()
			}
			t = append(t, []string{fmt.Sprint(rp.Rank), fmt.Sprint(rp.Coord), rp.InShape.String(), fmt.Sprint(rp.InStride), b, rp.OutShape.String(), fmt.Sprint(rp.OutStride), hide(FormatRanges(rp.OutRange)), fmt.Sprint(rp.Partial)})
		}
		r.Sections = append(r.Sections, Section{
			Title: s.plan.Op + ": every device's rewrite",
			Lines: []string{fmt.Sprintf("signature %v; no collective: each device runs on the shards it holds", s.plan.Signatures)},
			Table: t,
		})
	}
	caption := s.captions[step]
	if l.HideAnswers && s.focus[step] >= 0 { // the caption names the shard of the step's device
		caption = []string{fmt.Sprintf("rank %d holds a block %s", s.placement.Ranks()[s.focus[step]], Hidden)}
	}
	r.Sections = append(r.Sections, Section{Title: fmt.Sprintf("step %d of %d", step+1, len(s.layouts)), Lines: caption})
	r.Sections = append(r.Sections, focusSection(f, s.checkFocus, func() []string {
		if l.HideAnswers {
			return []string{f.String() + ": who holds what is " + Hidden}
		}
		return s.focusLines(f, shards)
	})...)
	return r
}

func shardRanges(sh sbp.Shard) [][2]int {
	r := make([][2]int, len(sh.Lo))
	for d := range r {
		r[d] = [2]int{sh.Lo[d], sh.Hi[d]}
	}
	return r
}

// work is the scene's run on sbp's simulated devices over arange inputs:
// placement scatters and gathers back, boxing boxes and gathers, plan
// applies the op (sbp.Apply) and gathers.
func (s *shardScene) work() Work {
	w := &ShardWork{Placement: s.placement, Out: s.shape, Inputs: []tensor.Shape{s.shape}, Sbps: []sbp.NdSbp{s.layouts[0]}}
	n := s.placement.Size()
	switch s.spec.Scene {
	case "placement":
		w.Kind, w.What = Place, fmt.Sprintf("scatter to %v on %d simulated devices, gather back", s.layouts[0], n)
	case "boxing":
		w.Kind, w.BoxTo = Box, s.layouts[len(s.layouts)-1]
		w.What = fmt.Sprintf("box %v to %v on %d simulated devices, gather", s.layouts[0], w.BoxTo, n)
	case "plan":
		w.Kind, w.Op, w.Inputs, w.Sbps = Apply, s.op, s.inShapes, s.inSbps
		w.What = fmt.Sprintf("%s on %d simulated devices, gathered", s.plan.Op, n)
	}
	return w
}
