package graph

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// view is the gradient of a view op, y = view(x), given gy: the view
// that puts y's elements back where x had them.
//
//	transpose  transpose(g)                      (its own inverse)
//	permute    permute(g, inv),  inv[perm[k]] = k
//	reshape    reshape(g, shape(x))
func (b *builder) view(n *Node, gy, name, why string) (string, error) {
	xs := b.g.Lookup(n.Args[0]).Shape
	switch n.Word {
	case "transpose":
		return b.add(name, "transpose", sbp.Transpose(), why+": transpose's backward is a transpose", gy)
	case "permute":
		perm := sbp.Params(n.Op).Perm
		inv := make([]int, len(perm))
		for k, d := range perm {
			inv[d] = k
		}
		return b.add(name, "permute", sbp.Permute(inv), why+": permute's backward permutes by the inverse order "+tensor.SpellInts(inv), gy)
	}
	return b.add(name, "reshape", sbp.Reshape(xs), why+": reshape's backward reshapes back to "+xs.String(), gy)
}
