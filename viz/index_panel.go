package viz

import (
	"fmt"
	"slices"
	"strings"
)

// panelLine is one line of the right-hand panel, and of the results
// panel (Report), which writes the same words.
type panelLine struct {
	s    string
	size float64
	col  Color
	font Font
}

func texts(lines []panelLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.s
	}
	return out
}

// panelHeight is how far drawPanel writes lines down.
func panelHeight(lines []panelLine) float64 {
	h := 0.0
	for _, l := range lines {
		h += l.size + 8
	}
	return h
}

// panelLines are the panel's words at step: the repeat stages, the
// selected cell's formula per operand (from tensor's trace) or what a
// reduce combines, and the focused storage cell's readers.
//
// hide (a question is open) leaves out what would answer it: the
// formula's terms and sum, what a reduce combines, the readers' count.
func (s *indexScene) panelLines(step int, lt indexLight, reads []Read, drawn int, hide bool) []panelLine {
	var out []panelLine
	if len(s.whyCopy) > 0 {
		out = append(out, panelLine{"reshape must copy", 16, Path, FontBold})
		for _, l := range s.whyCopy {
			out = append(out, panelLine{l, 13, Ink, FontMono})
		}
		out = append(out, panelLine{"", 2, Ink, FontRegular})
	}
	if len(s.stages) > 0 {
		out = append(out, panelLine{"repeat, step by step", 16, Ink, FontBold})
		for i, st := range s.stages {
			l := panelLine{st, 13, Ink, FontRegular}
			if i == min(step, len(s.stages)-1) { // the stage this frame shows
				l.col, l.font = Path, FontBold
			}
			out = append(out, l)
		}
		out = append(out, panelLine{"", 2, Ink, FontRegular})
	}
	switch {
	case step < s.lead:
		out = append(out, panelLine{fmt.Sprintf("frame %d of %d: the copy sweeps the output from frame %d", step+1, s.lead+len(s.sweep), s.lead+1), 14, Muted, FontRegular})
	case lt.sel == nil:
		out = append(out, panelLine{"the output is empty: nothing to read", 15, Muted, FontRegular})
	case lt.inCell != nil:
		out = append(out, panelLine{fmt.Sprintf("x%v feeds out %v", lt.inCell, lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	case slices.Equal(lt.sel, s.sweepAt(step)):
		out = append(out, panelLine{fmt.Sprintf("step %d of %d: out %v", step-s.lead+1, len(s.sweep), lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	default:
		out = append(out, panelLine{fmt.Sprintf("focus: out %v", lt.sel), 16, Ink, FontBold})
		out = append(out, s.cellLines(lt.sel, reads, hide)...)
	}
	if lt.storage != nil && hide {
		out = append(out, panelLine{"", 0, Ink, FontRegular})
		out = append(out, panelLine{fmt.Sprintf("%s[%d] is read by ? output cells", lt.storage.Operand, lt.storage.Offset), 14, Broadcast, FontBold})
	} else if lt.storage != nil {
		out = append(out, panelLine{"", 0, Ink, FontRegular})
		out = append(out, s.storageLines(*lt.storage)...)
		out = append(out, panelLine{fmt.Sprintf("%d of them drawn here, tinted", drawn), 14, Broadcast, FontRegular})
	}
	return out
}

// hiddenLine stands for the lines a question's answer would give away.
var hiddenLine = panelLine{"= ?  (" + Hidden + ")", formulaPx, Path, FontMono}

// cellLines say what output cell sel reads: the offset formula per
// operand, or the elements a reduce combines.
func (s *indexScene) cellLines(sel []int, reads []Read, hide bool) []panelLine {
	var out []panelLine
	if hide {
		return []panelLine{hiddenLine}
	}
	if s.reduced != nil {
		out = append(out, panelLine{fmt.Sprintf("combines %d elements of x:", len(reads)), 14, Ink, FontRegular})
		offs := make([]string, 0, 12)
		for i, r := range reads {
			if i == 11 && len(reads) > 12 {
				offs = append(offs, "…")
				break
			}
			offs = append(offs, fmt.Sprint(r.Offset))
		}
		return append(out, panelLine{"offsets " + strings.Join(offs, ", "), formulaPx, Ink, FontMono})
	}
	for _, o := range s.ops {
		view := o.view
		idx := sel
		if s.unravel {
			idx = view.Shape().Unravel(linear(s.out, sel))
			out = append(out, panelLine{fmt.Sprintf("= expanded view %v", idx), formulaPx, Ink, FontMono})
		}
		tr, err := view.Trace(idx)
		if err != nil {
			continue
		}
		out = append(out, panelLine{o.name + " offset = " + fmt.Sprint(tr.Base), formulaPx, Ink, FontMono})
		for _, t := range tr.Terms {
			term, col := fmt.Sprintf("  + %d·%d", t.Index, t.Stride), Ink
			if t.Broadcast {
				term += "  (broadcast: stride 0)"
				col = Broadcast
			}
			out = append(out, panelLine{term, formulaPx, col, FontMono})
		}
		out = append(out, panelLine{fmt.Sprintf("  = %d", tr.Offset), formulaPx, Path, FontMono})
	}
	return out
}

// storageLines say how many output cells read storage cell r in all
// (exact, from the layout).
func (s *indexScene) storageLines(r Read) []panelLine {
	n := s.readers(r)
	return []panelLine{{fmt.Sprintf("%s[%d] is read by %d output cell%s in all", r.Operand, r.Offset, n, plural(n)), 14, Broadcast, FontBold}}
}
