package importer

import (
	"fmt"
	"slices"
)

// Ops along dims: softmax and log_softmax, the reductions, the layer
// norm, and the pieces of a split (opTable).

func softmax(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dim is not a number")
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "softmax %s %d", x, d[0])
	return nil
}

// logSoftmax is (x − max) − log Σ e^(x − max) along the dim.
func logSoftmax(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dim is not a number")
	}
	sh := l.shapes[x]
	line := keepdims(sh, d)
	b := n.Name
	m := l.emit(b+"_max", line, "max %s %s", x, line.Spell())
	c := l.emit(b+"_shift", sh, "sub %s %s", x, m)
	e := l.emit(b+"_exp", sh, "exp %s", c)
	s := l.emit(b+"_sum", line, "sum %s %s", e, line.Spell())
	lg := l.emit(b+"_log", line, "log %s", s)
	l.names[n.Name] = l.emit(b, sh, "sub %s %s", c, lg)
	return nil
}

// reduce is a sum, mean, amax or amin over dims (all when none are
// given), kept as 1 or dropped as keepdim says.
func reduce(word string) lowerFunc {
	return func(l *lowering, n *node) error {
		x, err := l.name(n, n.arg(0))
		if err != nil {
			return err
		}
		var dims []int
		if a := n.kwarg("dim", 1); !a.absent() {
			if dims, _ = a.ints(); dims == nil {
				return l.refusal(n.Target, "its dims are not numbers")
			}
		}
		if dt := n.kwarg("dtype", 3); !dt.absent() && n.DType != "float32" {
			return l.refusal(n.Target, "a reduction to "+n.DType)
		}
		kept := keepdims(l.shapes[x], dims)
		r := l.emit(n.Name, kept, "%s %s %s", word, x, kept.Spell())
		l.names[n.Name] = l.reshapeTo(n.Name+"_dropped", r, n.outShape())
		return nil
	}
}

// layerNorm is native_layer_norm written out: the mean and the
// reciprocal of the standard deviation over the normalized dims (its
// second and third results), the normalized x, times the weight, plus the
// bias.
func layerNorm(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	norm, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its normalized shape is not numbers")
	}
	eps, ok := n.arg(4).num()
	if !ok {
		return l.refusal(n.Target, "its eps is not a number")
	}
	sh := l.shapes[x]
	dims := make([]int, len(norm))
	for i := range dims {
		dims[i] = len(sh) - len(norm) + i
	}
	stat := keepdims(sh, dims)
	b := n.Name
	mu := l.emit(b+"_mean", stat, "mean %s %s", x, stat.Spell())
	c := l.emit(b+"_centred", sh, "sub %s %s", x, mu)
	sq := l.emit(b+"_sq", sh, "square %s", c)
	v := l.emit(b+"_var", stat, "mean %s %s", sq, stat.Spell())
	ve := l.emit(b+"_var_eps", stat, "add %s %s", v, l.scalar(eps))
	r := l.emit(b+"_rstd", stat, "rsqrt %s", ve)
	y := l.emit(b+"_normed", sh, "mul %s %s", c, r)
	if !n.arg(2).absent() {
		w, err := l.name(n, n.arg(2))
		if err != nil {
			return err
		}
		y = l.emit(b+"_scaled", sh, "mul %s %s", y, w)
	}
	if !n.arg(3).absent() {
		bias, err := l.name(n, n.arg(3))
		if err != nil {
			return err
		}
		y = l.emit(b, sh, "add %s %s", y, bias)
	}
	results := []string{y, mu, r}
	l.tuples[n.Name] = func(i int) (string, error) { return results[i], nil }
	return nil
}

// lowerGetitem is the i-th result of a node of several.
func lowerGetitem(l *lowering, n *node) error {
	of := n.arg(0).ref()
	i, ok := n.arg(1).ints()
	get, isTuple := l.tuples[of]
	if !ok || !isTuple {
		return l.refusal("getitem", "an index into "+of+", which is not a tuple the importer wrote")
	}
	name, err := get(i[0])
	if err != nil {
		return err
	}
	l.names[n.Name] = name
	return nil
}

// pieces makes x's pieces of sizes along d, each on demand: piece i is
// the slice of its elements (x itself when it is the whole dim), its dim
// dropped when keepDim is false.
func (l *lowering) pieces(n *node, x string, d int, sizes []int, keepDim bool) error {
	sh := l.shapes[x]
	d = dim(d, len(sh))
	total := 0
	for _, s := range sizes {
		if s <= 0 {
			return l.refusal(n.Target, fmt.Sprintf("pieces of sizes %v along dim %d of %v", sizes, d, sh))
		}
		total += s
	}
	if total != sh[d] {
		return l.refusal(n.Target, fmt.Sprintf("pieces of sizes %v along dim %d of %v do not add up to %d", sizes, d, sh, sh[d]))
	}
	l.tuples[n.Name] = func(i int) (string, error) {
		if i < 0 || i >= len(sizes) {
			return "", l.refusal(n.Target, fmt.Sprintf("piece %d of %d", i, len(sizes)))
		}
		start := 0
		for _, s := range sizes[:i] {
			start += s
		}
		piece := x
		if len(sizes) > 1 {
			out := sh.Clone()
			out[d] = sizes[i]
			piece = l.emit(fmt.Sprintf("%s_%d", n.Name, i), out, "slice %s %d %d %d", x, d, start, start+sizes[i])
		}
		if !keepDim {
			return l.reshapeTo(fmt.Sprintf("%s_%d_dropped", n.Name, i), piece, slices.Concat(sh[:d], sh[d+1:])), nil
		}
		return piece, nil
	}
	return nil
}

// split is split (one size: pieces of it, the last what is left) or
// split_with_sizes (the sizes).
func split(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d := 0
	if v, ok := n.kwarg("dim", 2).ints(); ok {
		d = v[0]
	}
	sizes, ok := n.arg(1).ints()
	if !ok || len(sizes) == 0 {
		return l.refusal(n.Target, "its sizes are not numbers")
	}
	if opName(n.Target) == "aten.split" && len(sizes) == 1 && sizes[0] > 0 {
		n := l.shapes[x][dim(d, len(l.shapes[x]))]
		size := sizes[0]
		sizes = nil
		for at := 0; at < n; at += size {
			sizes = append(sizes, min(size, n-at))
		}
	}
	return l.pieces(n, x, d, sizes, true)
}

// unbind is pieces of size 1, the dim dropped.
func unbind(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d := 0
	if v, ok := n.kwarg("dim", 1).ints(); ok {
		d = v[0]
	}
	sh := l.shapes[x]
	sizes := make([]int, sh[dim(d, len(sh))])
	for i := range sizes {
		sizes[i] = 1
	}
	return l.pieces(n, x, d, sizes, false)
}
