package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// report: a section per operand (its layout and storage, coalesced), the
// output, reduce's kernel or repeat's stages, the step's cell and the
// focus, in the panel's words.
func (s *indexScene) report(step int, f *Focus) Report {
	var r Report
	for _, o := range s.ops {
		l := o.layout()
		cs, cst := tensor.Coalesce(l.Shape, l.Strides)
		r.Sections = append(r.Sections, Section{Title: "operand " + o.name, Lines: []string{
			fmt.Sprintf("read as shape %v, strides %v", l.Shape, l.Strides),
			fmt.Sprintf("storage offset %d; storage %d elements, contiguous %v", l.Offset, l.Storage, o.storage),
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
			Lines: texts(s.cellLines(sel, s.readsOf(sel))),
		})
	} else if step < s.lead {
		r.Sections = append(r.Sections, Section{Title: fmt.Sprintf("frame %d of %d", step+1, s.lead+len(s.sweep)), Lines: []string{s.stageViews[step].caption}})
	}
	r.Sections = append(r.Sections, focusSection(f, s.checkFocus, func() []string {
		lt := s.light(step, f)
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
		if lt.inCell != nil {
			lines[0] = fmt.Sprintf("x%v feeds out %v, with the %d cells it is combined with", lt.inCell, lt.sel, s.combined()-1)
		}
		return append(lines, texts(s.cellLines(lt.sel, s.readsOf(lt.sel)))...)
	})...)
	return r
}

// compute runs the scene's kernel on b and on the CPU over arange inputs:
// expand and view materialize the view, repeat, binary and reduce call
// their kernels.
func (s *indexScene) compute(b tensor.Backend) (Section, error) {
	if err := tensor.CheckResult(s.title, tensor.Float32, s.out); err != nil {
		return Section{}, err
	}
	shape := s.ops[0].storage
	x, err := tensor.Arange(tensor.Float32, shape)
	if err != nil {
		return Section{}, err
	}
	defer x.Release()
	var run func(be tensor.Backend) (tensor.Tensor, error)
	switch s.spec.Scene {
	case "expand", "view":
		xv, err := x.WithLayout(s.ops[0].view)
		if err != nil {
			return Section{}, err
		}
		run = func(be tensor.Backend) (tensor.Tensor, error) {
			y, err := be.Materialize(xv) // for a reshape that needs a copy: .contiguous()
			if err != nil || s.copyTo == nil {
				return y, err
			}
			return y.Reshape(s.copyTo) // then a view of the copy
		}
	case "repeat":
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Repeat(x, s.times) }
	case "binary":
		y, err := tensor.Arange(tensor.Float32, s.ops[1].storage)
		if err != nil {
			return Section{}, err
		}
		defer y.Release()
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Binary(s.binOp, x, y) }
	case "reduce":
		run = func(be tensor.Backend) (tensor.Tensor, error) { return be.Reduce(s.reduceOp, x, s.out) }
	}
	got, err := run(b)
	if err != nil {
		return Section{}, err
	}
	defer got.Release()
	want, err := run(tensor.CPU{})
	if err != nil {
		return Section{}, err
	}
	defer want.Release()
	return resultSection(s.title+" over arange inputs", b, got, want), nil
}
