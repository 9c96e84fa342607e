package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// An op's backward is its spec's Grad: the gradient ops OneFlow's
// autograd writes for it (oneflow/core/autograd/gradient_funcs, at the
// commit docs/planner-sources.md names), appended to the backward graph
// through Backward. Each gradient op is an Op of this package with its
// own signatures (stridelab's full list, for exact) and OneFlow's list
// (for greedy).

// Backward is the backward graph an op's Grad writes into.
type Backward interface {
	// Shape is the logical shape of a tensor already in the graph.
	Shape(name string) tensor.Shape
	// Add appends op applied to args as a node named name (a fresh
	// temporary's name when name is "") and returns the name; why says
	// what it is for, in a learner's words.
	Add(name string, op Op, why string, args ...string) (string, error)
	// Once is Add unless a node named name is there already (a mask or a
	// product two gradients share): then that name.
	Once(name string, op Op, why string, args ...string) (string, error)
}

// GradCall asks an op's Grad for the gradient of Out = op(Args...) with
// respect to Args[J], given Dy, the gradient of Out; the result is
// named Name unless it is Dy itself (the identity). Why begins the
// sentence each new node gives as its reason ("dy/dx").
type GradCall struct {
	Op   Op
	Out  string
	Args []string
	J    int
	Dy   string
	Name string
	Why  string
}

// X is the argument whose gradient the call asks for.
func (c GradCall) X() string { return c.Args[c.J] }

// Other is the other argument of a binary op.
func (c GradCall) Other() string { return c.Args[1-c.J] }

// Grad appends the gradient the call asks for, by the rule of c.Op's
// spec; an op with no rule is refused.
func Grad(b Backward, c GradCall) (string, error) {
	spec := SpecOf(c.Op)
	if spec == nil || spec.Grad == nil {
		return "", fmt.Errorf("no gradient rule for %s", c.Op.Name())
	}
	return spec.Grad(b, c)
}

// Differentiable says whether op has a gradient rule; the result of an
// op without one (eq) is a constant to the backward.
func Differentiable(op Op) bool {
	spec := SpecOf(op)
	return spec != nil && spec.Grad != nil
}

// reduceSumLike is OneFlow's BroadcastReduceSumLike: g summed over the
// dims where x broadcast (reduce_sum_like with x as its like), or g
// itself when g already has x's shape; named name.
func reduceSumLike(b Backward, name, g, x, why string) (string, error) {
	xs := b.Shape(x)
	if b.Shape(g).Equal(xs) {
		return g, nil
	}
	return b.Add(name, ReduceSumLike(xs), why+"; summed over the dims "+x+" broadcast (reduce_sum_like)", g, x)
}

// opThenSumLike appends op(args...) and, where its result does not have
// x's shape, its reduce_sum_like to x's (an op's gradient, then OneFlow's
// BroadcastReduceSumLike): the last of them named name.
func opThenSumLike(b Backward, name, x string, op Op, why string, args ...string) (string, error) {
	shapes := make([]tensor.Shape, len(args))
	for i, a := range args {
		shapes[i] = b.Shape(a)
	}
	own := "" // the op's result is x's gradient itself only where nothing is summed
	if out, err := op.OutShape(shapes); err == nil && out.Equal(b.Shape(x)) {
		own = name
	}
	g, err := b.Add(own, op, why, args...) // Add says what is wrong with the shapes
	if err != nil {
		return "", err
	}
	return reduceSumLike(b, name, g, x, why)
}
