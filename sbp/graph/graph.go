package graph

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// The planner and the engines work on a graph: the program's statements
// as nodes, and after a grad the backward's nodes, each one tensor
// defined from earlier ones.

// NodeKind is what a node does.
type NodeKind uint8

const (
	KindInput NodeKind = iota // a program input: its values and SBP are given
	KindOnes                  // the seed of the backward: ones, laid out as the result it differentiates
	KindZeros                 // the gradient of an input the result does not depend on
	KindOp                    // an op on earlier nodes
	KindBox                   // an earlier node boxed to sbp (a `box` statement, or a gradient's last boxing)
)

// Pass tells the forward from the backward.
type Pass string

const (
	Forward  Pass = "forward"
	Backward Pass = "backward"
)

// Node is one tensor of the graph: how it is made (Kind, and for an op
// its Word, Op and Args), its logical Shape, and which pass it is in.
type Node struct {
	Name  string
	Kind  NodeKind
	Word  string // the op's word, as a program or the backward spells it
	Op    sbp.Op
	Args  []string
	Shape tensor.Shape
	Sbp   sbp.NdSbp // KindInput, KindZeros: its SBP; KindBox: the SBP it boxes to
	Pass  Pass
	Why   string // what the node is for, in a learner's words
	// GradOf is the input whose gradient a final KindBox or an KindZeros
	// defines, and SeedOf the result an KindOnes seeds.
	GradOf, SeedOf string
	Values         string // KindInput: where its values come from, as its step's Values (program.ValuesArange and the others)
	Const          bool   // KindInput: a constant (written const, or int32 ids): it gets no gradient
	Auto           bool   // KindInput: its layout is the planner's to pick (written auto; Sbp is B until then)
	// DType is the node's element type: tensor.Int32 for ids (an input
	// written i32, its views), else float32 (0 reads as float32).
	DType tensor.DType
	// Of is, for a backward op, the forward node whose gradient rule
	// wrote it (for the adds that gather a tensor's gradients, that
	// tensor): where a front end groups it.
	Of string
	// Regather marks a forward box written regather, and (in the
	// backward) the copy of it the backward reads instead, boxed again
	// from the same source (RegatherName).
	Regather bool
}

// RegatherName is the name of the copy of a box written regather that
// the backward reads: boxed from the same source before its first
// reader there.
func RegatherName(name string) string { return name + ".regather" }

// Graph is the program's nodes, forward then backward, and where each
// name's gradient is (a node of its own, or an alias of another's).
type Graph struct {
	Prog  *program.Program
	Nodes []*Node
	Grads map[string]string // name → the node holding its gradient
}

// Lookup returns the last node named name, or nil.
func (g *Graph) Lookup(name string) *Node {
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if g.Nodes[i].Name == name {
			return g.Nodes[i]
		}
	}
	return nil
}

// GradName is the name a tensor's gradient has in plans, JSON and files.
func GradName(name string) string { return "grad_" + name }

// Build turns the program into nodes and, with a grad, appends the
// backward: each op's gradient rule in reverse program order, then every
// input's gradient boxed to the input's own SBP.
func Build(p *program.Program) (*Graph, error) {
	g := &Graph{Prog: p, Grads: map[string]string{}}
	for _, s := range p.Stmts {
		switch s.Kind {
		case program.Input:
			values := program.ValuesArange
			switch {
			case s.Uniform:
				values = program.ValuesUniform
			case s.From != "":
				values = s.From
			}
			g.Nodes = append(g.Nodes, &Node{Name: s.Name, Kind: KindInput, Word: "input", Shape: s.Shape, Sbp: s.Sbp, Pass: Forward, Values: values, Const: s.Const || s.Int(), DType: s.DType, Auto: s.Auto})
		case program.Apply:
			g.Nodes = append(g.Nodes, &Node{Name: s.Name, Kind: KindOp, Word: s.Word, Op: s.Op, Args: slices.Clone(s.Args), Shape: s.Shape, Pass: Forward, DType: s.DType})
		case program.Box:
			g.Nodes = append(g.Nodes, &Node{Name: s.Name, Kind: KindBox, Word: "box", Args: slices.Clone(s.Args), Shape: s.Shape, Sbp: s.Sbp, Pass: Forward, DType: s.DType,
				Why: fmt.Sprintf("box %s %v: an explicit boxing (OneFlow's to_global)", s.Args[0], s.Sbp), Regather: s.Regather})
		}
	}
	if p.Grad == nil {
		return g, nil
	}
	if err := g.backward(p.Grad.Name); err != nil {
		return nil, &program.Error{Line: p.Grad.Line, Col: p.Grad.Col, Stmt: p.Grad.Text, Err: err}
	}
	return g, nil
}

// backward appends the gradient of target with respect to every name.
func (g *Graph) backward(target string) error {
	fwd := slices.Clone(g.Nodes)
	// varies[x]: x depends on an input that is not a constant; what is
	// computed from constants alone has no gradient, as a tensor without
	// requires_grad has none in torch.
	varies := map[string]bool{}
	for _, n := range fwd {
		if n.Kind == KindInput {
			varies[n.Name] = !n.Const
		}
		if n.Kind == KindOp && !sbp.Differentiable(n.Op) {
			continue // a comparison: a constant to the backward
		}
		for _, a := range n.Args {
			varies[n.Name] = varies[n.Name] || varies[a]
		}
	}
	if !varies[target] {
		return fmt.Errorf("%s is computed from constants alone: it has no gradient to follow", target)
	}
	// reaches[x]: target depends on x, and x on an input that varies.
	reaches := map[string]bool{target: true}
	for i := len(fwd) - 1; i >= 0; i-- {
		if n := fwd[i]; reaches[n.Name] {
			for _, a := range n.Args {
				reaches[a] = varies[a]
			}
		}
	}
	// Each name's contributions, one per consumer on the way to target.
	consumers := map[string]int{}
	for _, n := range fwd {
		if reaches[n.Name] {
			for _, a := range n.Args {
				consumers[a]++
			}
		}
	}
	contrib := map[string][]string{}
	b := &builder{g: g}
	// The seed: ones, laid out as target is (the planner decides: a
	// partial result's gradient is B).
	t := g.Lookup(target)
	seed := GradName(target)
	g.Nodes = append(g.Nodes, &Node{Name: seed, Kind: KindOnes, Word: "ones", Shape: t.Shape, Pass: Backward, SeedOf: target,
		Why: fmt.Sprintf("the backward starts from d%s/d%s = 1", target, target)})
	g.Grads[target] = seed
	for i := len(fwd) - 1; i >= 0; i-- {
		n := fwd[i]
		if !reaches[n.Name] || n.Kind == KindInput {
			continue
		}
		gy, err := b.gather(n.Name, contrib[n.Name])
		if err != nil {
			return err
		}
		if gy == "" {
			gy = g.Grads[n.Name] // the seed
		}
		g.Grads[n.Name] = gy
		for j, a := range n.Args {
			if !reaches[a] {
				continue
			}
			name := GradName(a)
			if consumers[a] > 1 || g.Lookup(a).Kind == KindInput {
				name = GradName(a) + "." + n.Name
			}
			c, err := b.rule(n, j, gy, name)
			if err != nil {
				return err
			}
			contrib[a] = append(contrib[a], c)
		}
	}
	for _, n := range fwd {
		if n.Kind != KindInput || n.Const {
			continue
		}
		want := GradName(n.Name)
		if !reaches[n.Name] {
			g.Nodes = append(g.Nodes, &Node{Name: want, Kind: KindZeros, Word: "zeros", Shape: n.Shape, Sbp: n.Sbp, Pass: Backward, GradOf: n.Name,
				Why: fmt.Sprintf("%s does not depend on %s: its gradient is zero", target, n.Name)})
			g.Grads[n.Name] = want
			continue
		}
		src, err := b.gather(n.Name, contrib[n.Name])
		if err != nil {
			return err
		}
		g.Nodes = append(g.Nodes, &Node{Name: want, Kind: KindBox, Word: "box", Args: []string{src}, Shape: n.Shape, Sbp: n.Sbp, Pass: Backward, GradOf: n.Name,
			Why: fmt.Sprintf("%s's gradient lives as %s does (%v)", n.Name, n.Name, n.Sbp)})
		g.Grads[n.Name] = want
	}
	g.regather(len(fwd))
	return nil
}

// regather gives the backward (the nodes from index from) its own copy
// of each box written regather that it reads, as FSDP gathers a weight
// again for the backward (Zhao et al., "PyTorch FSDP", VLDB 2023, §3.2:
// the unsharded parameter is freed after the forward and all-gathered
// again before its gradient is computed): a box of the same source to
// the same SBP, just before the first node that reads it, and every
// backward read of the forward's copy reads it instead. The forward's
// copy is then free after its last forward reader.
func (g *Graph) regather(from int) {
	for _, n := range g.Nodes[:from] {
		if n.Kind != KindBox || !n.Regather {
			continue
		}
		again := RegatherName(n.Name)
		at := -1
		for i := from; i < len(g.Nodes); i++ {
			m := g.Nodes[i]
			if !slices.Contains(m.Args, n.Name) {
				continue
			}
			m.Args = slices.Clone(m.Args) // a gradient rule may share its forward op's
			for j, a := range m.Args {
				if a == n.Name {
					m.Args[j] = again
				}
			}
			if at < 0 {
				at = i
			}
		}
		if at < 0 {
			continue // the backward does not read it
		}
		box := &Node{Name: again, Kind: KindBox, Word: "box", Args: slices.Clone(n.Args), Shape: n.Shape, Sbp: n.Sbp, Pass: Backward, DType: n.DType, Of: n.Name, Regather: true,
			Why: fmt.Sprintf("%s boxed again from %s for the backward (regather: the forward's copy was freed after its last use there, as FSDP does)", n.Name, n.Args[0])}
		g.Nodes = slices.Insert(g.Nodes, at, box)
	}
}
