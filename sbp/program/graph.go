package program

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// The planner and the engines work on a graph: the program's statements
// as nodes, and after a grad the backward's nodes, each one tensor
// defined from earlier ones.

// nodeKind is what a node does.
type nodeKind uint8

const (
	nInput nodeKind = iota // a program input: its values and SBP are given
	nOnes                  // the seed of the backward: ones, laid out as the result it differentiates
	nZeros                 // the gradient of an input the result does not depend on
	nOp                    // an op on earlier nodes
	nBox                   // an earlier node boxed to sbp (a `box` statement, or a gradient's last boxing)
)

// Pass tells the forward from the backward.
type Pass string

const (
	Forward  Pass = "forward"
	Backward Pass = "backward"
)

type node struct {
	name  string
	kind  nodeKind
	word  string // the op's word, as a program or the backward spells it
	op    sbp.Op
	args  []string
	shape tensor.Shape
	sbp   sbp.NdSbp // nInput, nZeros: its SBP; nBox: the SBP it boxes to
	pass  Pass
	why   string // what the node is for, in a learner's words
	// gradOf is the input whose gradient a final nBox or an nZeros
	// defines, and seedOf the result an nOnes seeds.
	gradOf, seedOf string
	values         string // nInput: where its values come from, as its step's Values (values.go)
	ints           []int  // expand: the size; repeat: the times
}

// graph is the program's nodes, forward then backward, and where each
// name's gradient is (a node of its own, or an alias of another's).
type graph struct {
	prog  *Program
	nodes []*node
	grads map[string]string // name → the node holding its gradient
}

func (g *graph) lookup(name string) *node {
	for i := len(g.nodes) - 1; i >= 0; i-- {
		if g.nodes[i].name == name {
			return g.nodes[i]
		}
	}
	return nil
}

// GradName is the name a tensor's gradient has in plans, JSON and files.
func GradName(name string) string { return "grad_" + name }

// buildGraph turns the program into nodes and, with a grad, appends the
// backward: each op's gradient rule in reverse program order, then every
// input's gradient boxed to the input's own SBP.
func buildGraph(p *Program) (*graph, error) {
	g := &graph{prog: p, grads: map[string]string{}}
	for _, s := range p.Stmts {
		switch s.Kind {
		case Input:
			values := ValuesArange
			switch {
			case s.Uniform:
				values = ValuesUniform
			case s.From != "":
				values = s.From
			}
			g.nodes = append(g.nodes, &node{name: s.Name, kind: nInput, word: "input", shape: s.Shape, sbp: s.Sbp, pass: Forward, values: values})
		case Apply:
			g.nodes = append(g.nodes, &node{name: s.Name, kind: nOp, word: s.Word, op: s.Op, args: slices.Clone(s.Args), shape: s.Shape, pass: Forward, ints: s.Ints})
		case Box:
			g.nodes = append(g.nodes, &node{name: s.Name, kind: nBox, word: "box", args: slices.Clone(s.Args), shape: s.Shape, sbp: s.Sbp, pass: Forward,
				why: fmt.Sprintf("box %s %v: an explicit boxing (OneFlow's to_global)", s.Args[0], s.Sbp)})
		}
	}
	if p.Grad == nil {
		return g, nil
	}
	if err := g.backward(p.Grad.Name); err != nil {
		return nil, &Error{Line: p.Grad.Line, Col: p.Grad.Col, Stmt: p.Grad.Text, Err: err}
	}
	return g, nil
}

// backward appends the gradient of target with respect to every name.
func (g *graph) backward(target string) error {
	fwd := slices.Clone(g.nodes)
	// reaches[x]: target depends on x.
	reaches := map[string]bool{target: true}
	for i := len(fwd) - 1; i >= 0; i-- {
		if n := fwd[i]; reaches[n.name] {
			for _, a := range n.args {
				reaches[a] = true
			}
		}
	}
	// Each name's contributions, one per consumer on the way to target.
	consumers := map[string]int{}
	for _, n := range fwd {
		if reaches[n.name] {
			for _, a := range n.args {
				consumers[a]++
			}
		}
	}
	contrib := map[string][]string{}
	b := &builder{g: g}
	// The seed: ones, laid out as target is (the planner decides: a
	// partial result's gradient is B).
	t := g.lookup(target)
	seed := GradName(target)
	g.nodes = append(g.nodes, &node{name: seed, kind: nOnes, word: "ones", shape: t.shape, pass: Backward, seedOf: target,
		why: fmt.Sprintf("the backward starts from d%s/d%s = 1", target, target)})
	g.grads[target] = seed
	for i := len(fwd) - 1; i >= 0; i-- {
		n := fwd[i]
		if !reaches[n.name] || n.kind == nInput {
			continue
		}
		gy, err := b.gather(n.name, contrib[n.name], n.shape)
		if err != nil {
			return err
		}
		if gy == "" {
			gy = g.grads[n.name] // the seed
		}
		g.grads[n.name] = gy
		for j, a := range n.args {
			if !reaches[a] {
				continue
			}
			name := GradName(a)
			if consumers[a] > 1 || g.lookup(a).kind == nInput {
				name = GradName(a) + "." + n.name
			}
			c, err := b.rule(n, j, gy, name)
			if err != nil {
				return err
			}
			contrib[a] = append(contrib[a], c)
		}
	}
	for _, n := range fwd {
		if n.kind != nInput {
			continue
		}
		want := GradName(n.name)
		if !reaches[n.name] {
			g.nodes = append(g.nodes, &node{name: want, kind: nZeros, word: "zeros", shape: n.shape, sbp: n.sbp, pass: Backward, gradOf: n.name,
				why: fmt.Sprintf("%s does not depend on %s: its gradient is zero", target, n.name)})
			g.grads[n.name] = want
			continue
		}
		src, err := b.gather(n.name, contrib[n.name], n.shape)
		if err != nil {
			return err
		}
		g.nodes = append(g.nodes, &node{name: want, kind: nBox, word: "box", args: []string{src}, shape: n.shape, sbp: n.sbp, pass: Backward, gradOf: n.name,
			why: fmt.Sprintf("%s's gradient lives as %s does (%v)", n.name, n.name, n.sbp)})
		g.grads[n.name] = want
	}
	return nil
}
