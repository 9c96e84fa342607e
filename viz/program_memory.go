package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// memoryGroup is the devices that hold alike at every step: one line.
type memoryGroup struct {
	pos   []int // their positions in the placement
	ranks []int
}

// memoryGroups groups the placement's devices by what they hold at
// every step (Step.HeldBytes), in placement order.
func (s *programScene) memoryGroups() []memoryGroup {
	var out []memoryGroup
	ranks := s.plan.Program.Placement.Ranks()
	same := func(a, b int) bool {
		for _, st := range s.plan.Steps {
			if st.HeldBytes[a] != st.HeldBytes[b] {
				return false
			}
		}
		return true
	}
next:
	for pos := range ranks {
		for g := range out {
			if same(out[g].pos[0], pos) {
				out[g].pos, out[g].ranks = append(out[g].pos, pos), append(out[g].ranks, ranks[pos])
				continue next
			}
		}
		out = append(out, memoryGroup{pos: []int{pos}, ranks: []int{ranks[pos]}})
	}
	return out
}

// name is the group's ranks: "r2", "r0–r3" for a run, else "r0, r2".
func (g memoryGroup) name() string {
	lo, hi := g.ranks[0], g.ranks[len(g.ranks)-1]
	switch {
	case len(g.ranks) == 1:
		return fmt.Sprintf("r%d", lo)
	case hi-lo == len(g.ranks)-1 && slices.IsSorted(g.ranks):
		return fmt.Sprintf("r%d–r%d", lo, hi)
	}
	names := make([]string, len(g.ranks))
	for i, r := range g.ranks {
		names[i] = fmt.Sprintf("r%d", r)
	}
	return strings.Join(names, ", ")
}

// drawMemory draws what each device holds (Step.HeldBytes) at the steps
// run so far, a line per group of devices that hold alike (in the first
// one's colour; the first group's solid, the others' dashed) across the
// columns, on a scale that the plan's largest peak fills, so that the
// lines do not jump as the steps run. Each group's peak so far is a dot
// on its line, and the line under the chart names each group (a piece
// of its line, its ranks), its peak and the step it is first reached at.
func (s *programScene) drawMemory(c *canvas, first, last int, x0, colW, y, h float64, now int) {
	top, bottom := y+20, y+h-28
	right := x0 + colW*float64(last-first)
	c.text(x0, y+12, "what each device holds", progSmallPx, Muted, FontRegular, AnchorStart)
	c.add(Line{X1: x0, Y1: bottom, X2: right, Y2: bottom, Color: Faint, Width: 1})
	peak, _ := s.plan.Peak()
	most := slices.Max(peak)
	yOf := func(b int64) float64 {
		if most == 0 {
			return bottom
		}
		return bottom - (bottom-top)*float64(b)/float64(most)
	}
	end := min(last, now+1) // the steps drawn: those run so far
	lx := x0
	for k, g := range s.groups {
		col, pos := DeviceColor(g.pos[0]), g.pos[0]
		dash := k > 0            // the first group's line solid, the others dashed: not colour alone
		at, held := 0, int64(-1) // the group's peak so far, first reached
		for k := 0; k <= now; k++ {
			if b := s.plan.Steps[k].HeldBytes[pos]; b > held {
				at, held = k, b
			}
		}
		cx := func(i int) float64 { return x0 + colW*float64(i-first) + colW/2 }
		for i := first; i+1 < end; i++ {
			c.add(Line{X1: cx(i), Y1: yOf(s.plan.Steps[i].HeldBytes[pos]), X2: cx(i + 1), Y2: yOf(s.plan.Steps[i+1].HeldBytes[pos]), Color: col, Width: 2.5, Dash: dash})
		}
		if at >= first && at < end {
			px, py := cx(at), yOf(held)
			c.add(Rect{X: px - 4, Y: py - 4, W: 8, H: 8, Fill: col, Stroke: Ink, StrokeWidth: 1.5})
		}
		label := fmt.Sprintf("%s peak %s at step %d", g.name(), tensor.FormatBytes(held), at+1)
		if now < len(s.plan.Steps)-1 {
			label = fmt.Sprintf("%s peak so far %s at step %d", g.name(), tensor.FormatBytes(held), at+1)
		}
		if lx+22+TextWidth(label, FontRegular, progSmallPx) > right && lx > x0 {
			break // no room for another group's words
		}
		c.add(Line{X1: lx, Y1: y + h - 12, X2: lx + 18, Y2: y + h - 12, Color: col, Width: 3, Dash: dash})
		t, size := fitLabel(label, FontRegular, progSmallPx, right-lx-22)
		c.text(lx+22, y+h-8, t, size, Ink, FontRegular, AnchorStart)
		lx += 22 + TextWidth(t, FontRegular, size) + 14
	}
}
