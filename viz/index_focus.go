package viz

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// What an index scene lights at a step: the output cell drawn as selected
// (the sweep's, or the focused one), reduce's focused input cell, and the
// storage cell whose readers are tinted (the focus, or --offset's). The
// focus only changes fills, strokes, wires and the panel, never where a
// cell lies, so the hot regions stay those of the plain frame.
type indexLight struct {
	sel     []int // the output cell wired to what it reads, nil when the output is empty
	inCell  []int // reduce: the focused cell of the input grid
	storage *Read // the storage cell whose readers are tinted
}

func (s *indexScene) light(step int, f *Focus) indexLight {
	lt := indexLight{sel: s.sweepAt(step)}
	if s.offset >= 0 {
		lt.storage = &Read{s.ops[0].name, s.offset}
	}
	if f == nil || s.checkFocus(*f) != nil {
		return lt
	}
	switch {
	case f.Kind == FocusCell && (f.Operand == "out" || s.reduced == nil): // out, or a binary operand's grid over out
		lt.sel = f.Index
	case f.Kind == FocusCell && f.Operand == "x":
		lt.inCell, lt.sel = f.Index, s.fedBy(f.Index)
	case f.Kind == FocusStorage:
		lt.storage = &Read{f.Operand, f.Offset}
	}
	return lt
}

// fedBy is the output cell reduce's input index feeds: its kept
// coordinates, aligned on the right as broadcasting aligns them.
func (s *indexScene) fedBy(in []int) []int {
	out := make([]int, len(s.out))
	lead := len(in) - len(out)
	for d := range out {
		if !s.reduced[d+lead] {
			out[d] = in[d+lead]
		}
	}
	return out
}

// checkFocus accepts an output cell, reduce's input cell, a cell of a
// binary operand's grid (over the output's shape), or a storage cell of
// any operand, each within its range.
func (s *indexScene) checkFocus(f Focus) error {
	switch {
	case f.Kind == FocusCell && f.Operand == "out":
		return inShape("out", s.out, f.Index)
	case f.Kind == FocusCell && f.Operand == "x" && s.reduced != nil:
		return inShape("x", s.ops[0].view.Shape(), f.Index)
	case f.Kind == FocusCell && len(s.ops) == 2 && (f.Operand == "a" || f.Operand == "b"):
		return inShape(f.Operand, s.out, f.Index) // drawn over the output's shape
	case f.Kind == FocusStorage:
		for _, o := range s.ops {
			if o.name == f.Operand {
				n, _ := o.storage.NumElements()
				if f.Offset < 0 || f.Offset >= n {
					return fmt.Errorf("viz: focus on %s storage offset %d: the storage has offsets 0 to %d", o.name, f.Offset, n-1)
				}
				return nil
			}
		}
	}
	return fmt.Errorf("viz: %s: nothing to focus on as %s %q %v", s.spec.Scene, f.Kind, f.Operand, f.Index)
}

func inShape(name string, shape tensor.Shape, idx []int) error {
	ok := len(idx) == len(shape)
	for d := 0; ok && d < len(idx); d++ {
		ok = idx[d] >= 0 && idx[d] < shape[d]
	}
	if !ok {
		return fmt.Errorf("viz: focus on %s%v: the index is outside %v", name, idx, shape)
	}
	return nil
}

// drawnReaders lists the cells of g whose reads include r.
func (s *indexScene) drawnReaders(g Grid, r Read) [][]int {
	var out [][]int
	for _, gc := range g.Cells {
		if slices.Contains(s.readsOf(gc.Index), r) {
			out = append(out, gc.Index)
		}
	}
	return out
}

// readers is how many output cells read r in all, from the layout alone
// (never by walking the output): through a view, the indices at one
// offset; repeat's output is its expanded view reshaped one to one; each
// input index of a reduce feeds one output cell.
func (s *indexScene) readers(r Read) int {
	for _, o := range s.ops {
		if o.name == r.Operand {
			return indicesAt(o.view, r.Offset)
		}
	}
	return 0
}

// indicesAt counts the indices of l at storage offset off without
// enumerating them: stride-0 dims multiply the count by their size,
// negative strides are reflected, and the other dims, largest stride
// first, take only the indices that leave a remainder the smaller dims
// can still reach. For the layouts views make (each stride past the reach
// of the smaller ones) that is one index per dim: O(rank log rank).
func indicesAt(l tensor.Layout, off int) int {
	if l.NumElements() == 0 {
		return 0
	}
	type dim struct{ n, s int }
	var dims []dim
	fan, rem := 1, off-l.Base()
	for d := 0; d < l.Rank(); d++ {
		n, st := l.Dim(d), l.Stride(d)
		switch {
		case n == 1:
		case st == 0:
			fan *= n
		case st < 0: // index i reads as index n-1-i at stride -st
			rem -= (n - 1) * st
			dims = append(dims, dim{n, -st})
		default:
			dims = append(dims, dim{n, st})
		}
	}
	slices.SortFunc(dims, func(a, b dim) int { return b.s - a.s })
	reach := make([]int, len(dims)+1) // the largest remainder dims k.. can make
	for k := len(dims) - 1; k >= 0; k-- {
		reach[k] = reach[k+1] + (dims[k].n-1)*dims[k].s
	}
	var walk func(k, rem int) int
	walk = func(k, rem int) int {
		if rem < 0 || rem > reach[k] {
			return 0
		}
		if k == len(dims) {
			return 1
		}
		d := dims[k]
		lo := 0
		if x := rem - reach[k+1]; x > 0 {
			lo = (x + d.s - 1) / d.s
		}
		count := 0
		for i := lo; i <= min(d.n-1, rem/d.s); i++ {
			count += walk(k+1, rem-i*d.s)
		}
		return count
	}
	return fan * walk(0, rem)
}
