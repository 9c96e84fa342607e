package graph

import (
	"strconv"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// softmax is the gradient of y = softmax(x) along d, given gy: the
// Jacobian-vector product of softmax (OneFlow's softmax_grad and torch's
// _softmax_backward_data compute the same),
//
//	grad_x = y · (g − Σ_d (g · y))
//
// written as four ops so their SBPs fall out of the signatures: mul
// (g·y), sum to x's shape with d kept as 1 (a split d gives P(sum)
// there), sub (the sum broadcast back along d), mul by y.
func (b *builder) softmax(n *Node, gy, name, why string) (string, error) {
	y := n.Name
	xs := b.g.Lookup(n.Args[0]).Shape
	d := sbp.Params(n.Op).Axis
	if d < 0 {
		d += len(xs)
	}
	line := xs.Clone()
	line[d] = 1
	what := why + " = " + y + " · (grad - sum(grad · " + y + ", dim " + strconv.Itoa(d) + "))"
	p, err := b.add("", "mul", sbp.Binary(tensor.Mul), what, gy, y)
	if err != nil {
		return "", err
	}
	s, err := b.add("", "sum", sbp.Reduce(tensor.Sum, line), what, p)
	if err != nil {
		return "", err
	}
	q, err := b.add("", "sub", sbp.Binary(tensor.Sub), what, gy, s)
	if err != nil {
		return "", err
	}
	return b.add(name, "mul", sbp.Binary(tensor.Mul), what, y, q)
}
