package planner

import (
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// precisions gives every name of the graph its precision
// (tensor.Precision), by name index: an input's as its statement writes
// it; ids and their views i32; an op's result its float operands'
// (tensor.PromotePrecision: bf16 with bf16 is bf16, with f32 f32); a
// boxed copy its source's; the backward's seed its result's, a zero
// gradient its input's. So a model whose parameters and inputs are bf16
// has bf16 activations and gradients, as PyTorch's autocast-free bf16
// training has, and what an element costs (memory, the wire, the chip's
// peak) follows from it.
func (pl *planner) precisions() []tensor.Precision {
	byName := map[string]tensor.Precision{}
	for _, s := range pl.g.Prog.Stmts {
		if s.Kind == program.Input {
			byName[s.Name] = s.Precision
		}
	}
	prec := make([]tensor.Precision, len(pl.names))
	for i, n := range pl.g.Nodes {
		var p tensor.Precision
		switch {
		case n.DType == tensor.Int32:
			p = tensor.I32
		case n.Kind == graph.KindInput:
			p = byName[n.Name]
		case n.Kind == graph.KindOnes:
			p = prec[pl.names[n.SeedOf]]
		case n.Kind == graph.KindZeros:
			p = prec[pl.names[n.GradOf]]
		default: // an op or a boxing: its operands'
			ps := make([]tensor.Precision, len(pl.args[i]))
			for j, a := range pl.args[i] {
				ps[j] = prec[a]
			}
			p = tensor.PromotePrecision(ps...)
		}
		if pl.def[pl.out[i]] == i {
			prec[pl.out[i]] = p
			for _, a := range pl.aliases[pl.out[i]] { // a regather's source: the same values
				prec[a] = p
			}
		}
	}
	return prec
}
