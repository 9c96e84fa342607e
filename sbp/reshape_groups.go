package sbp

import "github.com/stridelab/stridelab/tensor"

// viewGroup is one group of a reshape: the input dims In, flattened in
// row-major order, are the same elements as the output dims Out. A
// group with no input dims makes a new size-1 output dim; one with no
// output dims drops a size-1 input dim.
type viewGroup struct{ In, Out []int }

// viewGroups cuts a reshape of from into to (the same element count)
// into groups, as PyTorch DTensor's view_groups does
// (torch/distributed/tensor/_ops/_view_ops.py): walk both shapes from
// the left; a size-1 dim on one side facing a larger one on the other is
// a group of its own; otherwise take one dim of each and add the next
// dim of whichever side has the smaller product until the products
// meet. [2 3 4] -> [2 12] is {0}->{0}, {1 2}->{1}; [6] -> [2 3] is
// {0}->{0 1}; [6 4] -> [3 8] is {0 1}->{0 1}.
//
// A tensor with no elements has no products to meet: it is one group of
// every dim.
func viewGroups(from, to tensor.Shape) []viewGroup {
	if n, _ := from.NumElements(); n == 0 {
		return []viewGroup{{In: dimsUpTo(len(from)), Out: dimsUpTo(len(to))}}
	}
	var groups []viewGroup
	i, j := 0, 0
	for i < len(from) || j < len(to) {
		var g viewGroup
		f, t := 1, 1
		if i < len(from) {
			f = from[i]
			g.In = append(g.In, i)
			i++
		}
		if j < len(to) {
			t = to[j]
			g.Out = append(g.Out, j)
			j++
		}
		switch {
		case f == 1 && t != 1: // a size-1 input dim dropped
			j--
			g.Out = nil
		case f != 1 && t == 1: // a size-1 output dim made
			i--
			g.In = nil
		default:
			for f != t {
				if f < t {
					f *= from[i]
					g.In = append(g.In, i)
					i++
				} else {
					t *= to[j]
					g.Out = append(g.Out, j)
					j++
				}
			}
		}
		groups = append(groups, g)
	}
	return groups
}

func dimsUpTo(n int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = i
	}
	return d
}

// flatRange returns the elements [lo, hi) that the box [boxLo[d],
// boxHi[d]) of a tensor of the shape covers in the row-major flattening
// of its dims (one group's side); ok is false when the box is not one
// run of that flattening. The box is one run when, past the first dim
// it holds more than one index of, it holds every dim whole; its start
// is Σ boxLo[d]·inner(d), inner(d) the product of the sizes after d.
// An empty box is the empty run [0, 0).
func flatRange(shape tensor.Shape, dims []int, boxLo, boxHi []int) (lo, hi int, ok bool) {
	for _, d := range dims {
		if boxHi[d] == boxLo[d] {
			return 0, 0, true
		}
	}
	count, wide := 1, false
	for _, d := range dims {
		n := boxHi[d] - boxLo[d]
		if wide && n != shape[d] {
			return 0, 0, false
		}
		wide = wide || n > 1
		count *= n
	}
	inner := 1
	for k := len(dims) - 1; k >= 0; k-- {
		lo += boxLo[dims[k]] * inner
		inner *= shape[dims[k]]
	}
	return lo, lo + count, true
}
