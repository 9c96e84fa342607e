package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// report: a section per operand (its layout and storage, coalesced), the
// output, reduce's kernel or repeat's stages, the step's cell and the
// focus, in the panel's words. With l.HideAnswers, what a cell reads (the
// offset formula, what a reduce combines) and who reads a storage element
// say Hidden.
func (s *indexScene) report(step int, l Look) Report {
	f := l.Focus
	cellLines := func(sel []int) []string { return texts(s.cellLines(sel, s.readsOf(sel), l.HideAnswers)) }
	var r Report
	for _, o := range s.ops {
		ol := o.layout()
		cs, cst := tensor.Coalesce(ol.Shape, ol.Strides)
		r.Sections = append(r.Sections, Section{Title: "operand " + o.name, Lines: []string{
			fmt.Sprintf("read as shape %v, strides %v", ol.Shape, ol.Strides),
			fmt.Sprintf("storage offset %d; storage %d elements, contiguous %v", ol.Offset, ol.Storage, o.storage),
			fmt.Sprintf("coalesced: shape %v, strides %v", cs, cst[0]),
		}})
	}
	bytes := "more bytes than an int64 holds"
	if n, err := tensor.ResultBytes(tensor.Float32, s.out); err == nil {
		bytes = tensor.FormatBytes(n)
		if n >= 1024 {
			bytes += fmt.Sprintf(" (%d B)", n)
		}
	}
	r.Sections = append(r.Sections, Section{Title: "output", Lines: []string{
		fmt.Sprintf("shape %v, contiguous strides %v", s.out, tensor.ContiguousStrides(s.out)),
		bytes + " as float32",
	}})
	if s.kernel != nil {
		r.Sections = append(r.Sections, Section{Title: "reduce kernel", Lines: s.kernel})
	}
	if s.stages != nil {
		r.Sections = append(r.Sections, Section{Title: "repeat, step by step", Lines: s.stages})
	}
	if s.whyCopy != nil {
		r.Sections = append(r.Sections, Section{Title: "reshape must copy", Lines: s.whyCopy})
	}
	if sel := s.sweepAt(step); sel != nil {
		r.Sections = append(r.Sections, Section{
			Title: fmt.Sprintf("step %d of %d: out %v", step-s.lead+1, len(s.sweep), sel),
			Lines: cellLines(sel),
		})
	} else if step < s.lead {
		r.Sections = append(r.Sections, Section{Title: fmt.Sprintf("frame %d of %d", step+1, s.lead+len(s.sweep)), Lines: []string{s.stageViews[step].caption}})
	}
	r.Sections = append(r.Sections, focusSection(f, s.checkFocus, func() []string {
		lt := s.light(step, f)
		if f.Kind == FocusStorage && l.HideAnswers {
			return []string{fmt.Sprintf("%s[%d]: the cells that read it are %s", lt.storage.Operand, lt.storage.Offset, Hidden)}
		}
		if f.Kind == FocusStorage {
			var drawn []string
			for _, idx := range s.sweep {
				if slices.Contains(s.readsOf(idx), *lt.storage) {
					drawn = append(drawn, fmt.Sprint(idx))
				}
			}
			lines := texts(s.storageLines(*lt.storage))
			if len(drawn) > 8 {
				drawn = append(drawn[:8], "…")
			}
			return append(lines, "among the cells drawn: "+strings.Join(drawn, " "))
		}
		lines := []string{fmt.Sprintf("out %v", lt.sel)}
		switch {
		case lt.inCell != nil && l.HideAnswers:
			return []string{fmt.Sprintf("x%v: the output cell it feeds is %s", lt.inCell, Hidden)}
		case lt.inCell != nil:
			lines[0] = fmt.Sprintf("x%v feeds out %v, with the %d cells it is combined with", lt.inCell, lt.sel, s.combined()-1)
		}
		return append(lines, cellLines(lt.sel)...)
	})...)
	return r
}

// work is the scene's kernel over arange inputs: expand and view
// materialize the view (a reshape that must copy then views the copy),
// repeat, binary and reduce call their kernels.
func (s *indexScene) work() Work {
	w := &KernelWork{What: s.title + " over arange inputs", Out: s.out}
	for _, o := range s.ops {
		w.Inputs = append(w.Inputs, o.storage)
	}
	switch s.spec.Scene {
	case "expand", "view":
		w.Op, w.View, w.ReshapeTo = Materialize, s.ops[0].view, s.copyTo
	case "repeat":
		w.Op, w.Times = Repeat, s.times
	case "binary":
		w.Op, w.BinaryOp = Binary, s.binOp
	case "reduce":
		w.Op, w.ReduceOp = Reduce, s.reduceOp
	}
	return w
}
