package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

type gatherOp struct{}

// Gather looks up rows of a table by token ids (tensor.Backend.Gather;
// an embedding, OneFlow's gather along axis 0, torch's F.embedding):
// table [V, C…] float32, ids [I…] int32, each in 0 … V−1;
//
//	out[i, c] = table[ids[i], c]      out: [I…, C…]
//
// Its signatures (k = ids' rank):
//
//	S(i) x B   -> S(i)          ids split, each device looks up its own (i < k)
//	B    x S(0) -> P(sum)       vocabulary-parallel: each device holds rows
//	                            lo … hi−1 and gives 0 for the ids outside
//	                            them, so the parts sum to the lookup
//	                            (Megatron-LM's VocabParallelEmbedding)
//	B    x S(j) -> S(k+j−1)     a table split along a feature dim (j ≥ 1)
//	B    x B   -> B
//	B    x P   -> P             a lookup is linear in the table: sum, max
//	                            and min of the parts' rows alike
//
// with the table first in the op's arguments (table, ids). OneFlow's list
// (gather_op.cpp, GatherOp::GetSbp, axis 0), for greedy: ids S(i) with
// the table B for every axis i of ids, then the table S(j) with ids B for
// every axis j of the table (S(0) giving P(sum)), then all B.
func Gather() Op { return gatherOp{} }

func (gatherOp) Name() string   { return "gather" }
func (gatherOp) String() string { return "gather" }
func (gatherOp) Arity() int     { return 2 }

func (o gatherOp) OutShape(in []tensor.Shape) (tensor.Shape, error) {
	if len(in[0]) == 0 {
		return nil, newError(ErrShape, describe(o, in), "the table is a scalar; it needs a dim of rows to look up")
	}
	return append(in[1].Clone(), in[0][1:]...), nil
}

func (o gatherOp) Signatures(in []tensor.Shape) []Signature {
	if _, err := o.OutShape(in); err != nil {
		return nil
	}
	sigs := o.oneflow(in)
	sigs = append(sigs, Signature{In: []SBP{B, B}, Out: B})
	for _, p := range []SBP{PSum, P(tensor.MaxAll), P(tensor.MinAll)} {
		sigs = append(sigs, Signature{In: []SBP{p, B}, Out: p})
	}
	return sigs
}

// oneflow is GatherOp::GetSbp at axis 0, in its order (the op's
// arguments are table, ids; OneFlow's in, indices).
func (o gatherOp) oneflow(in []tensor.Shape) []Signature {
	k := len(in[1])
	var sigs []Signature
	for i := range k {
		sigs = append(sigs, Signature{In: []SBP{B, S(i)}, Out: S(i)})
	}
	for j := range in[0] {
		out := S(k + j - 1)
		if j == 0 {
			out = PSum
		}
		sigs = append(sigs, Signature{In: []SBP{S(j), B}, Out: out})
	}
	return sigs
}

func (o gatherOp) why(in []tensor.Shape, sbps []SBP) string {
	t, ids := sbps[0], sbps[1]
	switch {
	case ids.Kind == Partial:
		return "ids are row numbers: a sum of parts of ids names no row; they are split or whole"
	case t.Kind != Broadcast && ids.Kind == Split:
		return fmt.Sprintf("a device holding part of the ids looks up whole rows: the table must be whole (B), not %v", t)
	}
	return ""
}

func (o gatherOp) Args(in []tensor.Shape, out tensor.Shape) Args {
	return Args{OutStride: tensor.ContiguousStrides(out)}
}

// Local looks up the device's ids in its whole table (a single device's
// run, lo 0).
func (o gatherOp) Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error) {
	if err := idsWithin(in[1], in[0].Shape()[0]); err != nil {
		return tensor.Tensor{}, err
	}
	return be.Gather(in[0], in[1], 0)
}

// localShards looks up the device's ids in its part of the table: rows
// Lo[0] … Hi[0]−1 of the logical table (its shard), zeros for the ids
// outside them. Every id must be a row of the logical table: each device
// holds either the whole table or every id, so it checks its own.
func (o gatherOp) localShards(be tensor.Backend, in []tensor.Tensor, shards []Shard, logical []tensor.Shape, _ Shard) (tensor.Tensor, error) {
	if err := idsWithin(in[1], logical[0][0]); err != nil {
		return tensor.Tensor{}, err
	}
	return be.Gather(in[0], in[1], shards[0].Lo[0])
}

// idsWithin checks that every id is a row of a table of rows rows.
func idsWithin(ids tensor.Tensor, rows int) error {
	for i, v := range ids.Float64s() {
		if v < 0 || v >= float64(rows) {
			return fmt.Errorf("id %v (element %d of the ids %v) is not a row of the table's %d (0 to %d)", v, i, ids.Shape(), rows, rows-1)
		}
	}
	return nil
}

func init() {
	registerOp(&OpSpec{
		Name: "gather",
		Grad: gradGather,
		Words: []OpWord{{Word: "gather", Usage: "TABLE IDS", Order: 15,
			Build: func(c *WordCall) (Op, error) {
				if _, err := twoNames(c); err != nil {
					return nil, err
				}
				return Gather(), nil
			},
			Spell: func(OpParams) (string, bool) { return "", true },
		}},
		Global: func(lib string, _ OpParams, x []string, _ []tensor.Shape) string {
			if lib == "flow" {
				return fmt.Sprintf("flow.gather(%s, 0, %s)", x[0], x[1])
			}
			return fmt.Sprintf("torch.nn.functional.embedding(%s.long(), %s)", x[1], x[0])
		},
		Local: func(_ OpParams, x []string, each func(func(RankPlan) []int) string) string {
			return fmt.Sprintf("gather_rows(%s, %s, %s)", x[0], x[1], each(func(r RankPlan) []int { return []int{r.InRange[0][0]} }))
		},
	})
}

// gradGather is gather's backward as OneFlow writes it (gather.cpp's
// Gather::Apply): the table's gradient is unsorted_segment_sum_like(dy,
// ids, table), the rows of dy summed by id into the table's shape; the
// ids, row numbers, have none.
func gradGather(b Backward, c GradCall) (string, error) {
	if c.J != 0 {
		return "", fmt.Errorf("gather's ids %s are row numbers: they have no gradient", c.X())
	}
	return b.Add(c.Name, UnsortedSegmentSumLike(), c.Why+" = the rows of grad summed by id (unsorted_segment_sum_like)", c.Dy, c.Args[1], c.Args[0])
}

func (gatherOp) idsArg() int { return 1 }
