package graph

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// builder appends the backward's nodes to a graph.
type builder struct {
	g    *Graph
	temp int
}

// add appends an op node named name (or a fresh temporary's name when
// name is "") and returns its name.
func (b *builder) add(name, word string, op sbp.Op, why string, args ...string) (string, error) {
	shapes := make([]tensor.Shape, len(args))
	for i, a := range args {
		shapes[i] = b.g.Lookup(a).Shape
	}
	out, err := op.OutShape(shapes)
	if err != nil {
		return "", fmt.Errorf("the backward's %s of %v: %w", word, args, err)
	}
	if name == "" { // a temporary: a name no program can use (it holds a dot)
		b.temp++
		name = fmt.Sprintf("tmp.%d", b.temp)
	}
	b.g.Nodes = append(b.g.Nodes, &Node{Name: name, Kind: KindOp, Word: word, Op: op, Args: args, Shape: out, Pass: Backward, Why: why})
	return name, nil
}

// sumTo reduces the gradient x to shape (the broadcast-reduce: the
// backward of broadcasting), or returns x when it has that shape.
func (b *builder) sumTo(name, x string, shape tensor.Shape, why string) (string, error) {
	if b.g.Lookup(x).Shape.Equal(shape) {
		return x, nil
	}
	return b.add(name, "sum", sbp.Reduce(tensor.Sum, shape), why+"; summed over the broadcast dims to "+shape.String(), x)
}

// matmulTo is a batched matmul's gradient for an operand of shape: the
// product x · y (its batch the forward output's), summed over the batch
// dims the operand broadcast (the builder's sumTo) when it has fewer or
// size-1 ones; the product is named name when no sum follows.
func (b *builder) matmulTo(name string, shape tensor.Shape, why, x, y string) (string, error) {
	out, err := sbp.Matmul().OutShape([]tensor.Shape{b.g.Lookup(x).Shape, b.g.Lookup(y).Shape})
	if err != nil {
		return "", fmt.Errorf("the backward's matmul of %s and %s: %w", x, y, err)
	}
	if out.Equal(shape) {
		return b.add(name, "matmul", sbp.Matmul(), why, x, y)
	}
	p, err := b.add("", "matmul", sbp.Matmul(), why, x, y)
	if err != nil {
		return "", err
	}
	return b.sumTo(name, p, shape, why)
}

// gather adds up the contributions to a name's gradient: "" when there
// are none, the one itself, or a chain of adds named grad_NAME at the end.
func (b *builder) gather(name string, parts []string, shape tensor.Shape) (string, error) {
	switch len(parts) {
	case 0:
		return "", nil
	case 1:
		return parts[0], nil
	}
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
		acc, err = b.add(out, "add", sbp.Binary(tensor.Add), fmt.Sprintf("%s is used %d times: its gradients add up", name, len(parts)), acc, p)
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
	x := n.Args[j]
	xs := b.g.Lookup(x).Shape
	why := fmt.Sprintf("d%s/d%s", n.Name, x)
	switch n.Kind {
	case KindBox:
		return gy, nil // a boxing is the identity on values
	}
	switch n.Word {
	case "expand":
		// Expand's backward is the broadcast-reduce (the merged runs of
		// the MXNet/TVM note: 2·n kernels cover every case).
		return b.add(name, "sum", sbp.Reduce(tensor.Sum, xs), why+": expand's backward sums over the broadcast dims", gy)
	case "repeat":
		return b.add(name, "repeat_grad", sbp.RepeatGrad(sbp.Params(n.Op).Times, xs), why+": repeat's backward sums the tiles", gy)
	case "sum":
		return b.add(name, "expand", sbp.Expand(xs), why+": sum's backward is an expand (stride 0, no copy)", gy)
	case "matmul":
		// transpose swaps the last two dims: each matrix of a batch.
		a, c := n.Args[0], n.Args[1]
		if j == 0 { // d(a·c)/da = g · c^T
			ct, err := b.once(c+".T", "transpose", sbp.Transpose(), "the transpose of "+c+", for "+why, c)
			if err != nil {
				return "", err
			}
			return b.matmulTo(name, xs, why+" = grad · "+c+"^T", gy, ct)
		}
		at, err := b.once(a+".T", "transpose", sbp.Transpose(), "the transpose of "+a+", for "+why, a)
		if err != nil {
			return "", err
		}
		return b.matmulTo(name, xs, why+" = "+a+"^T · grad", at, gy)
	case "add":
		return b.sumTo(name, gy, xs, why+" = grad")
	case "sub":
		if j == 0 {
			return b.sumTo(name, gy, xs, why+" = grad")
		}
		s, err := b.sumTo("", gy, xs, why+" = -grad")
		if err != nil {
			return "", err
		}
		return b.add(name, "scale", sbp.Scale(-1), why+" = -grad", s)
	case "mul":
		other := n.Args[1-j]
		p, err := b.add("", "mul", sbp.Binary(tensor.Mul), why+" = grad · "+other, gy, other)
		if err != nil {
			return "", err
		}
		return b.sumTo(name, p, xs, why+" = grad · "+other)
	case "div":
		den := n.Args[1]
		if j == 0 { // d(a/c)/da = grad / c
			q, err := b.add("", "div", sbp.Binary(tensor.Div), why+" = grad / "+den, gy, den)
			if err != nil {
				return "", err
			}
			return b.sumTo(name, q, xs, why+" = grad / "+den)
		}
		// d(a/c)/dc = -grad · (a/c) / c = -grad · y / c
		p, err := b.add("", "mul", sbp.Binary(tensor.Mul), why+" = -grad · "+n.Name+" / "+den, gy, n.Name)
		if err != nil {
			return "", err
		}
		q, err := b.add("", "div", sbp.Binary(tensor.Div), why+" = -grad · "+n.Name+" / "+den, p, den)
		if err != nil {
			return "", err
		}
		s, err := b.sumTo("", q, xs, why)
		if err != nil {
			return "", err
		}
		return b.add(name, "scale", sbp.Scale(-1), why+" = -grad · "+n.Name+" / "+den, s)
	case "max", "min":
		if n.Op.Arity() == 2 {
			return b.pick(n, j, gy, name, why)
		}
		return b.pickReduced(n, gy, name, why)
	case "mean":
		// mean's backward is sum's, an expand, of grad / count: scaled
		// first, on the smaller tensor.
		c := sbp.Params(n.Op).Count
		f := 0.0 // a mean over nothing: x has no elements to take a gradient
		if c > 0 {
			f = 1 / float64(c)
		}
		q, err := b.add("", "scale", sbp.Scale(f), fmt.Sprintf("%s: mean's backward divides grad by the %d elements each output averages", why, c), gy)
		if err != nil {
			return "", err
		}
		return b.add(name, "expand", sbp.Expand(xs), why+": then expands it back (stride 0, no copy)", q)
	case "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu":
		return b.unary(n, gy, name, why)
	case "transpose", "permute", "reshape":
		return b.view(n, gy, name, why)
	case "softmax":
		return b.softmax(n, gy, name, why)
	case "scale":
		c := sbp.Params(n.Op).Factor
		return b.add(name, "scale", sbp.Scale(c), fmt.Sprintf("%s = grad · %g", why, c), gy)
	}
	return "", fmt.Errorf("no gradient rule for %s", n.Word)
}

// unary is the gradient of y = f(x), a unary op, given gy: grad times
// f'(x), written with y where that is cheaper (OneFlow's _grad ops take
// y for exp, sqrt, rsqrt and tanh too):
//
//	exp    g·y                 log    g / x
//	neg    −g                  sqrt   g / y · ½
//	rsqrt  g·y·y·y · (−½)      tanh   g − g·y·y  (g·(1 − y²))
//	relu   g · step(x)         step(x) = 1 where x > 0, else 0
func (b *builder) unary(n *Node, gy, name, why string) (string, error) {
	x, y := n.Args[0], n.Name
	// chain multiplies gy by each of the names in turn (a mul each).
	chain := func(out, what string, by ...string) (string, error) {
		acc := gy
		for i, f := range by {
			o := ""
			if i == len(by)-1 {
				o = out
			}
			var err error
			if acc, err = b.add(o, "mul", sbp.Binary(tensor.Mul), why+" = "+what, acc, f); err != nil {
				return "", err
			}
		}
		return acc, nil
	}
	switch n.Word {
	case "exp":
		return chain(name, "grad · "+y, y)
	case "log":
		return b.add(name, "div", sbp.Binary(tensor.Div), why+" = grad / "+x, gy, x)
	case "neg":
		return b.add(name, "neg", sbp.Unary(tensor.Neg), why+" = -grad", gy)
	case "sqrt":
		q, err := b.add("", "div", sbp.Binary(tensor.Div), why+" = grad / (2·"+y+")", gy, y)
		if err != nil {
			return "", err
		}
		return b.add(name, "scale", sbp.Scale(0.5), why+" = grad / (2·"+y+")", q)
	case "rsqrt":
		c, err := chain("", "-grad · "+y+"³ / 2", y, y, y)
		if err != nil {
			return "", err
		}
		return b.add(name, "scale", sbp.Scale(-0.5), why+" = -grad · "+y+"³ / 2", c)
	case "tanh":
		c, err := chain("", "grad · (1 - "+y+"²)", y, y)
		if err != nil {
			return "", err
		}
		return b.add(name, "sub", sbp.Binary(tensor.Sub), why+" = grad · (1 - "+y+"²)", gy, c)
	}
	// relu: the gradient passes where x > 0 (0 at 0, as torch's)
	m, err := b.once(x+">0", "step", sbp.Unary(tensor.Step), "where "+x+" > 0: relu's derivative, for "+why, x)
	if err != nil {
		return "", err
	}
	return b.add(name, "mul", sbp.Binary(tensor.Mul), why+" = grad where "+x+" > 0", gy, m)
}

// pick is the gradient of an elementwise max or min: the gradient goes
// to the operand that was picked, split evenly where both were (ties):
//
//	m = eq(x, y);  n = eq(a, y) + eq(b, y);  dy/dx = reduce(grad · m / n)
func (b *builder) pick(n *Node, j int, gy, name, why string) (string, error) {
	mask := func(x string) (string, error) {
		return b.once(n.Name+"=="+x, "eq", sbp.Binary(tensor.Eq), "where "+n.Name+" picked "+x, x, n.Name)
	}
	ma, err := mask(n.Args[0])
	if err != nil {
		return "", err
	}
	mb, err := mask(n.Args[1])
	if err != nil {
		return "", err
	}
	count, err := b.once(n.Name+".picks", "add", sbp.Binary(tensor.Add), "how many operands "+n.Name+" picked (2 at a tie: the gradient is split)", ma, mb)
	if err != nil {
		return "", err
	}
	m := []string{ma, mb}[j]
	p, err := b.add("", "mul", sbp.Binary(tensor.Mul), why+" = grad where "+n.Args[j]+" was picked", gy, m)
	if err != nil {
		return "", err
	}
	q, err := b.add("", "div", sbp.Binary(tensor.Div), why+", split at ties", p, count)
	if err != nil {
		return "", err
	}
	return b.sumTo(name, q, b.g.Lookup(n.Args[j]).Shape, why)
}

// once is add, unless a node of that name is there already (a transpose
// or a mask two gradients share): then that node.
func (b *builder) once(name, word string, op sbp.Op, why string, args ...string) (string, error) {
	if b.g.Lookup(name) != nil {
		return name, nil
	}
	return b.add(name, word, op, why, args...)
}

// pickReduced is the gradient of a max or min reduction: the gradient of
// each output cell goes to the input cells that hold the extreme, split
// evenly among them:
//
//	m = eq(x, y);  n = sum(m to y's shape);  dy/dx = m · (grad / n)
func (b *builder) pickReduced(n *Node, gy, name, why string) (string, error) {
	x := n.Args[0]
	m, err := b.add("", "eq", sbp.Binary(tensor.Eq), why+": the cells that hold the "+n.Word, x, n.Name)
	if err != nil {
		return "", err
	}
	c, err := b.add("", "sum", sbp.Reduce(tensor.Sum, n.Shape), why+": how many cells hold it", m)
	if err != nil {
		return "", err
	}
	q, err := b.add("", "div", sbp.Binary(tensor.Div), why+": the gradient split among them", gy, c)
	if err != nil {
		return "", err
	}
	return b.add(name, "mul", sbp.Binary(tensor.Mul), why+" = eq(x, y) · grad / count", m, q)
}
