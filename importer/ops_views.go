package importer

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// The views make_fx emits, and the ops that name their argument: the
// language's reshape, expand, transpose and permute (opTable).

func alias(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = x
	return nil
}

// toCopy is a dtype conversion: to a float, the same values (programs
// run on float32).
func toCopy(l *lowering, n *node) error {
	if !strings.HasPrefix(n.DType, "float") && n.DType != "bfloat16" {
		return l.refusal(n.Target, "a conversion to "+n.DType+" of a value the parameters reach")
	}
	return alias(l, n)
}

func reshape(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.reshapeTo(n.Name, x, n.outShape())
	return nil
}

func expand(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	if out := n.outShape(); !l.shapes[x].Equal(out) {
		x = l.emit(n.Name, out, "expand %s %s", x, out.Spell())
	}
	l.names[n.Name] = x
	return nil
}

// swap writes x with dims d0 and d1 swapped: transpose for the last
// two, else a permute.
func (l *lowering) swap(n *node, x string, d0, d1 int) string {
	r := len(l.shapes[x])
	d0, d1 = dim(d0, r), dim(d1, r)
	if d0 == d1 {
		return x
	}
	if min(d0, d1) == r-2 && max(d0, d1) == r-1 {
		return l.emit(n.Name, n.outShape(), "transpose %s", x)
	}
	order := make([]int, r)
	for i := range order {
		order[i] = i
	}
	order[d0], order[d1] = d1, d0
	return l.emit(n.Name, n.outShape(), "permute %s %s", x, tensor.SpellInts(order))
}

func transposeT(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	if len(l.shapes[x]) < 2 {
		l.names[n.Name] = x
		return nil
	}
	l.names[n.Name] = l.swap(n, x, 0, 1)
	return nil
}

func transpose(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	e, ok2 := n.arg(2).ints()
	if !ok || !ok2 {
		return l.refusal(n.Target, "its dims are not numbers")
	}
	l.names[n.Name] = l.swap(n, x, d[0], e[0])
	return nil
}

func permute(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	order, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dims are not numbers")
	}
	identity := true
	for i := range order {
		order[i] = dim(order[i], len(order))
		identity = identity && order[i] == i
	}
	if identity {
		l.names[n.Name] = x
		return nil
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "permute %s %s", x, tensor.SpellInts(order))
	return nil
}

// slice is a range of one dim, slice.Tensor(x, dim=0, start=None,
// end=None, step=1): x itself when the range is the whole dim, else the
// language's slice (a slice of a constant is folded at import). start
// and end count from the end when negative and are clamped to the dim,
// as Python's; a step other than 1 is refused.
func slice(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	sh := l.shapes[x]
	d := 0
	if v, ok := n.kwarg("dim", 1).ints(); ok {
		d = dim(v[0], len(sh))
	}
	if step, ok := n.kwarg("step", 4).ints(); ok && step[0] != 1 {
		return l.refusal(n.Target, fmt.Sprintf("a step of %d; the importer writes step 1", step[0]))
	}
	bound := func(a arg, def int) int {
		v, ok := a.ints()
		if !ok || a.absent() {
			return def
		}
		i := v[0]
		if i < 0 {
			i += sh[d]
		}
		return min(max(i, 0), sh[d])
	}
	start, stop := bound(n.kwarg("start", 2), 0), bound(n.kwarg("end", 3), sh[d])
	switch {
	case start == 0 && stop == sh[d]:
		l.names[n.Name] = x
	case start >= stop:
		return l.refusal(n.Target, fmt.Sprintf("an empty slice %d … %d of dim %d of %v", start, stop-1, d, sh))
	default:
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "slice %s %d %d %d", x, d, start, stop)
	}
	return nil
}

// cat joins its tensors along a dim (cat(tensors, dim=0)).
func cat(l *lowering, n *node) error {
	refs := refsIn(n.arg(0).raw)
	if len(refs) == 0 {
		return l.refusal(n.Target, "its tensors are not the trace's")
	}
	var xs []string
	for _, r := range refs {
		x, ok := l.names[r]
		if !ok {
			return l.refusal(n.Target, "a tensor the importer has not written ("+r+")")
		}
		xs = append(xs, x)
	}
	d := 0
	if v, ok := n.kwarg("dim", 1).ints(); ok {
		d = dim(v[0], len(l.shapes[xs[0]]))
	}
	if len(xs) == 1 {
		l.names[n.Name] = xs[0]
		return nil
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "cat %s %d", strings.Join(xs, " "), d)
	return nil
}
