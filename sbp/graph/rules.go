package graph

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// builder appends the backward's nodes to a graph: the sbp.Backward each
// op's gradient rule (its sbp.OpSpec's Grad) writes into.
type builder struct {
	g    *Graph
	temp int
	of   string // the forward node whose rule is writing (Node.Of)
}

// Shape is the shape of the node named name.
func (b *builder) Shape(name string) tensor.Shape { return b.g.Lookup(name).Shape }

// Add appends an op node named name (or a fresh temporary's name when
// name is "") and returns its name; the node shows the op's word
// (sbp.WordOf).
func (b *builder) Add(name string, op sbp.Op, why string, args ...string) (string, error) {
	shapes := make([]tensor.Shape, len(args))
	for i, a := range args {
		shapes[i] = b.g.Lookup(a).Shape
	}
	word := sbp.WordOf(op)
	out, err := op.OutShape(shapes)
	if err != nil {
		return "", fmt.Errorf("the backward's %s of %v: %w", word, args, err)
	}
	if name != "" && b.g.Lookup(name) != nil {
		name = "" // taken: an op that reads one tensor twice (mul h h) gives it two contributions
	}
	if name == "" { // a temporary: a name no program can use (it holds a dot)
		b.temp++
		name = fmt.Sprintf("tmp.%d", b.temp)
	}
	b.g.Nodes = append(b.g.Nodes, &Node{Name: name, Kind: KindOp, Word: word, Op: op, Args: args, Shape: out, Pass: Backward, Why: why, Of: b.of})
	return name, nil
}

// Once is Add, unless a node of that name is there already (a mask two
// gradients share): then that node.
func (b *builder) Once(name string, op sbp.Op, why string, args ...string) (string, error) {
	if b.g.Lookup(name) != nil {
		return name, nil
	}
	return b.Add(name, op, why, args...)
}

// gather adds up the contributions to a name's gradient: "" when there
// are none, the one itself, or a chain of adds named grad_NAME at the
// end. (OneFlow's autograd adds a tensor's gradients as they arrive,
// functional::Add into its accumulated gradient: the same adds, of
// equal shapes, whose list is add_n's.)
func (b *builder) gather(name string, parts []string) (string, error) {
	switch len(parts) {
	case 0:
		return "", nil
	case 1:
		return parts[0], nil
	}
	b.of = name
	acc := parts[0]
	for i, p := range parts[1:] {
		out := ""
		if i == len(parts)-2 {
			out = GradName(name)
			if b.g.Lookup(name).Kind == KindInput {
				out += ".sum"
			}
		}
		var err error
		acc, err = b.Add(out, sbp.Binary(tensor.Add), fmt.Sprintf("%s is used %d times: its gradients add up", name, len(parts)), acc, p)
		if err != nil {
			return "", err
		}
	}
	return acc, nil
}

// rule appends the gradient of n with respect to its argument j, given
// gy, the gradient of n's output; the result is named name unless it is
// gy itself (an identity).
func (b *builder) rule(n *Node, j int, gy, name string) (string, error) {
	if n.Kind == KindBox {
		return gy, nil // a boxing is the identity on values
	}
	b.of = n.Name
	return sbp.Grad(b, sbp.GradCall{Op: n.Op, Out: n.Name, Args: n.Args, J: j, Dy: gy, Name: name,
		Why: fmt.Sprintf("d%s/d%s", n.Name, n.Args[j])})
}
