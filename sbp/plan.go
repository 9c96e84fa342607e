package sbp

import (
	"github.com/stridelab/stridelab/tensor"
)

// RankPlan is the physical rewrite of an op on one device: the shapes and
// strides of its input shards (a, and b for two-input ops), the logical
// ranges they hold, the kernel's per-device arguments and its output.
type RankPlan struct {
	Rank        int          `json:"rank"`
	Coord       []int        `json:"coord"`
	InShape     tensor.Shape `json:"in_shape"`
	InStride    []int        `json:"in_stride"`
	InRange     [][2]int     `json:"in_range"`
	BShape      tensor.Shape `json:"b_shape,omitzero"`
	BStride     []int        `json:"b_stride,omitzero"`
	BRange      [][2]int     `json:"b_range,omitzero"`
	ExpandSize  []int        `json:"expand_size,omitzero"`
	RepeatTimes []int        `json:"repeat_times,omitzero"`
	ReduceTo    tensor.Shape `json:"reduce_to,omitzero"`
	OutShape    tensor.Shape `json:"out_shape"`
	OutStride   []int        `json:"out_stride"`
	OutRange    [][2]int     `json:"out_range"`
	Partial     bool         `json:"partial"`
}

// OpPlan is how an op runs on global tensors: the logical shapes, the
// input and output nd-SBPs, the signature each mesh dim uses, and every
// device's physical rewrite.
type OpPlan struct {
	Op         string         `json:"op"`
	Placement  Placement      `json:"placement"`
	InShapes   []tensor.Shape `json:"in_shapes"`
	OutShape   tensor.Shape   `json:"out_shape"`
	InSbp      []NdSbp        `json:"in_sbp"`
	OutSbp     NdSbp          `json:"out_sbp"`
	Signatures []string       `json:"signatures"` // one per mesh dim
	Ranks      []RankPlan     `json:"ranks"`
}

// PlanOp infers the output SBP of op on inputs of the logical shapes laid
// out on p by in (Infer) and rewrites it per device: each device runs the
// op on its shards with the arguments that produce its output shard. For
// the seed's expand — [4 3 1 2] to [2 4 3 4 2], S(3) on 2 devices — every
// device gets input [4 3 1 1] (strides [3 1 1 1]), expand size
// [2 4 3 4 1] and output strides [0 3 1 0 1], and the output is S(4).
func PlanOp(op Op, shapes []tensor.Shape, p Placement, in []NdSbp) (OpPlan, error) {
	out, sigs, err := Infer(op, shapes, p, in)
	if err != nil {
		return OpPlan{}, err
	}
	return planOp(op, shapes, p, in, out, sigs), nil
}

// PlanOpAs is PlanOp for a chosen output SBP (InferAs): the planner's
// pick among the outputs the inputs allow, such as expand's B -> S(0)
// where PlanOp would take the first, B -> B.
func PlanOpAs(op Op, shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) (OpPlan, error) {
	sigs, err := InferAs(op, shapes, p, in, out)
	if err != nil {
		return OpPlan{}, err
	}
	return planOp(op, shapes, p, in, out, sigs), nil
}

func planOp(op Op, shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp, sigs []Signature) OpPlan {
	outShape, _ := op.OutShape(shapes)
	plan := OpPlan{Op: describe(op, shapes), Placement: p, OutShape: outShape, OutSbp: out}
	for i := range shapes {
		plan.InShapes = append(plan.InShapes, shapes[i].Clone())
		plan.InSbp = append(plan.InSbp, in[i].Clone())
	}
	for _, s := range sigs {
		plan.Signatures = append(plan.Signatures, s.String())
	}
	inShards := make([][]Shard, len(shapes))
	for i := range shapes {
		inShards[i], _ = Shards(shapes[i], p, in[i])
	}
	outShards, _ := Shards(outShape, p, out)
	for r, osh := range outShards {
		local := make([]tensor.Shape, len(shapes))
		for i := range shapes {
			local[i] = inShards[i][r].Shape
		}
		args := op.Args(local, osh.Shape)
		rp := RankPlan{
			Rank: osh.Rank, Coord: osh.Coord,
			InShape: local[0], InStride: inShards[0][r].Stride, InRange: ranges(inShards[0][r]),
			ExpandSize: args.ExpandSize, RepeatTimes: args.RepeatTimes, ReduceTo: args.ReduceTo,
			OutShape: osh.Shape, OutStride: args.OutStride, OutRange: ranges(osh), Partial: osh.Partial,
		}
		if len(shapes) > 1 {
			rp.BShape, rp.BStride, rp.BRange = local[1], inShards[1][r].Stride, ranges(inShards[1][r])
		}
		plan.Ranks = append(plan.Ranks, rp)
	}
	return plan
}

func ranges(sh Shard) [][2]int {
	out := make([][2]int, len(sh.Lo))
	for d := range out {
		out[d] = [2]int{sh.Lo[d], sh.Hi[d]}
	}
	return out
}

// LocalInShapes is the shape of every input's shard on the device of
// plan.Ranks[i]: a's and b's (InShape, BShape), then those of the inputs
// past the second (unsorted_segment_sum_like's like), from their layouts.
func (p OpPlan) LocalInShapes(i int) ([]tensor.Shape, error) {
	r := p.Ranks[i]
	out := []tensor.Shape{r.InShape}
	if len(p.InShapes) > 1 {
		out = append(out, r.BShape)
	}
	for k := 2; k < len(p.InShapes); k++ {
		shards, err := Shards(p.InShapes[k], p.Placement, p.InSbp[k])
		if err != nil {
			return nil, err
		}
		out = append(out, shards[i].Shape)
	}
	return out, nil
}
