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
	table, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	ids, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
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

// nllLoss is −Σ one-hot(target)·logp over the rows, divided by their
// count (reduction mean) or not (sum); every target counts (an
// ignore_index that occurs would be summed as a zero row and still
// counted).
func nllLoss(l *lowering, n *node) error {
	logp, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	target, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	if !n.arg(2).absent() {
		return l.refusal(n.Target, "class weights")
	}
	red, _ := n.arg(3).ints()
	sh := l.shapes[logp]
	if len(sh) != 2 || len(red) != 1 || red[0] != 1 && red[0] != 2 {
		return l.refusal(n.Target, fmt.Sprintf("log-probabilities of %v with reduction %v; the importer writes [N, C] with mean or sum", sh, red))
	}
	o := l.oneHot(n.Name, target, sh[1])
	p := l.emit(n.Name+"_picked", sh, "mul %s %s", logp, o)
	s := l.emit(n.Name+"_sum", tensor.Shape{}, "sum %s ()", p)
	f := -1.0
	if red[0] == 1 {
		f = -1 / float64(sh[0])
	}
	loss := l.emit(n.Name, tensor.Shape{}, "scale %s %s", s, spellFloat(f))
	l.tuples[n.Name] = func(i int) (string, error) {
		if i != 0 {
			return "", l.refusal(n.Target, "its total weight")
		}
		return loss, nil
	}
	return nil
}
