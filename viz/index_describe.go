package viz

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// describe says what f means, from the layouts alone: an output cell
// names the storage elements it reads (a reduce's, every one it combines,
// cut short past maxListed); a storage element, how many output cells
// read it in all and the first drawn ones; a cell of a binary operand's
// grid or of a reduce's input, the element it is and the output cell it
// serves.
func (s *indexScene) describe(step int, f Focus) (string, error) {
	switch {
	case f.Kind == FocusStorage:
		r := Read{f.Operand, f.Offset}
		n := s.readers(r)
		if n == 0 {
			return readName(r) + " is read by no output cell", nil
		}
		var drawn []string
		for _, idx := range s.sweep {
			if len(drawn) > maxListed {
				break
			}
			if slices.Contains(s.readsOf(idx), r) {
				drawn = append(drawn, outName(idx))
			}
		}
		return fmt.Sprintf("%s is read by %d output cell%s: %s", readName(r), n, plural(n), listCut(drawn, n, maxListed)), nil
	case f.Operand == "out":
		reads := s.readsOf(f.Index)
		names := make([]string, 0, min(len(reads), maxListed+1))
		for _, r := range reads[:min(len(reads), maxListed+1)] {
			names = append(names, readName(r))
		}
		if s.reduced != nil {
			return fmt.Sprintf("%s %s %s (%d cell%s)", outName(f.Index), reduceVerb(s.reduceOp), listCut(names, len(reads), maxListed), len(reads), plural(len(reads))), nil
		}
		return outName(f.Index) + " reads " + andList(names), nil
	case s.reduced != nil: // a cell of the reduce's input grid
		r := Read{"x", s.ops[0].view.Offset(f.Index)}
		n := s.combined()
		return fmt.Sprintf("cell [%s] of x is %s, 1 of the %d cell%s %s %s", joinInts(f.Index), readName(r), n, plural(n), outName(s.fedBy(f.Index)), reduceVerb(s.reduceOp)), nil
	}
	// A cell of a binary operand's grid, drawn over the output's shape.
	for _, o := range s.ops {
		if o.name == f.Operand {
			r := Read{o.name, o.view.Offset(f.Index)}
			copied := ""
			if ghost(o.view, f.Index) {
				copied = " (a stretched copy)"
			}
			return fmt.Sprintf("cell [%s] of %s reads %s%s, for %s", joinInts(f.Index), o.name, readName(r), copied, outName(f.Index)), nil
		}
	}
	return "", fmt.Errorf("viz: %s: nothing to describe as %v", s.spec.Scene, f)
}

// readName spells r as a storage focus does: x[5].
func readName(r Read) string { return fmt.Sprintf("%s[%d]", r.Operand, r.Offset) }

// outName spells an output cell: out[2,1,2].
func outName(idx []int) string { return "out[" + joinInts(idx) + "]" }

// reduceVerb is what a reduce's output cell does with its inputs.
func reduceVerb(op tensor.ReduceOp) string {
	switch op {
	case tensor.MaxAll:
		return "takes the max of"
	case tensor.MinAll:
		return "takes the min of"
	}
	return "sums"
}
