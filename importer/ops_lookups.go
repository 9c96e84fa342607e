package importer

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/tensor"
)

// Lookups by integer ids: the embedding, a gather of int32 ids (or of
// one-hot rows, where the ids are float32 because something else reads
// them too), and the negative log-likelihood, of one-hot rows (opTable).

// oneHot writes eq(ids[..., None], 0…n−1): 1 at each id's place.
func (l *lowering) oneHot(base, ids string, n int) string {
	col := l.reshapeTo(base+"_col", ids, slices.Concat(l.shapes[ids], tensor.Shape{1}))
	return l.emit(base+"_onehot", slices.Concat(l.shapes[ids], tensor.Shape{n}), "eq %s %s", col, l.arange(n))
}

// embedding is gather(table, ids) of int32 ids, or one-hot(ids)·table.
func embedding(l *lowering, n *node) error {
	t, err := l.tensors(n, 0, 1)
	if err != nil {
		return err
	}
	table, ids := t[0], t[1]
	if len(l.shapes[ids]) == 0 || len(l.shapes[table]) != 2 {
		return l.refusal(n.Target, fmt.Sprintf("ids of shape %v into a table of %v", l.shapes[ids], l.shapes[table]))
	}
	if l.ids[ids] {
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "gather %s %s", table, ids)
		return nil
	}
	o := l.oneHot(n.Name, ids, l.shapes[table][0])
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "matmul %s %s", o, table)
	return nil
}

// nllLoss is −Σ one-hot(target)·logp over the rows whose target is not
// ignore_index, divided by their count (reduction mean, torch's: NaN
// when every row is ignored) or not (sum). The rows counted are
// 1 − eq(target, ignore_index), a constant; an ignore_index outside the
// classes (torch's −100) has a zero one-hot row already, one among them
// is masked out of it.
func nllLoss(l *lowering, n *node) error {
	t, err := l.tensors(n, 0, 1)
	if err != nil {
		return err
	}
	logp, target := t[0], t[1]
	if !n.arg(2).absent() {
		return l.refusal(n.Target, "class weights")
	}
	red, _ := n.arg(3).ints()
	sh := l.shapes[logp]
	if len(sh) != 2 || len(red) != 1 || red[0] != 1 && red[0] != 2 {
		return l.refusal(n.Target, fmt.Sprintf("log-probabilities of %v with reduction %v; the importer writes [N, C] with mean or sum", sh, red))
	}
	ignore := -100
	if v, ok := n.kwarg("ignore_index", 4).ints(); ok {
		ignore = v[0]
	}
	o := l.oneHot(n.Name, target, sh[1])
	ignored := l.emit(n.Name+"_ignored", l.shapes[target], "eq %s %s", target, l.scalar(float64(ignore)))
	counted := l.emit(n.Name+"_counted", l.shapes[target], "sub %s %s", l.scalar(1), ignored)
	if ignore >= 0 && ignore < sh[1] {
		col := l.reshapeTo(n.Name+"_counted_col", counted, tensor.Shape{sh[0], 1})
		o = l.emit(n.Name+"_onehot_counted", sh, "mul %s %s", o, col)
	}
	p := l.emit(n.Name+"_picked", sh, "mul %s %s", logp, o)
	s := l.emit(n.Name+"_sum", tensor.Shape{}, "sum %s ()", p)
	var loss string
	if red[0] == 1 {
		c := l.emit(n.Name+"_count", tensor.Shape{}, "sum %s ()", counted)
		neg := l.emit(n.Name+"_total", tensor.Shape{}, "scale %s -1", s)
		loss = l.emit(n.Name, tensor.Shape{}, "div %s %s", neg, c)
	} else {
		loss = l.emit(n.Name, tensor.Shape{}, "scale %s -1", s)
	}
	l.tuples[n.Name] = func(i int) (string, error) {
		if i != 0 {
			return "", l.refusal(n.Target, "its total weight")
		}
		return loss, nil
	}
	return nil
}

// gather is torch.gather along the last dim, a loss written by hand
// (logp.gather(-1, target[:, None])): out[…, j] = x[…, index[…, j]],
// written as one-hot rows, Σ_c x[…, c]·[index[…, j] = c] (eq of the
// index and 0…C−1, a product and a sum over the classes).
func gather(l *lowering, n *node) error {
	t, err := l.tensors(n, 0, 2)
	if err != nil {
		return err
	}
	x, index := t[0], t[1]
	sh, ish := l.shapes[x], l.shapes[index]
	d, ok := n.arg(1).ints()
	if !ok || len(sh) == 0 || dim(d[0], len(sh)) != len(sh)-1 {
		return l.refusal(n.Target, fmt.Sprintf("a gather along dim %v of %v; the importer writes the last dim's", d, sh))
	}
	if len(ish) != len(sh) || !ish[:len(ish)-1].Equal(sh[:len(sh)-1]) {
		return l.refusal(n.Target, fmt.Sprintf("an index of %v into %v; the importer writes an index whose leading dims are the tensor's", ish, sh))
	}
	if l.ids[index] {
		return l.refusal(n.Target, "an index that an embedding reads too")
	}
	lead, c, k := sh[:len(sh)-1], sh[len(sh)-1], ish[len(ish)-1]
	onehot := l.oneHot(n.Name, index, c) // [..., k, C]
	rows := l.reshapeTo(n.Name+"_rows", x, slices.Concat(lead, tensor.Shape{1, c}))
	picked := l.emit(n.Name+"_picked", slices.Concat(lead, tensor.Shape{k, c}), "mul %s %s", rows, onehot)
	kept := slices.Concat(lead, tensor.Shape{k, 1})
	s := l.emit(n.Name+"_sum", kept, "sum %s %s", picked, kept.Spell())
	l.names[n.Name] = l.reshapeTo(n.Name, s, n.outShape())
	return nil
}
