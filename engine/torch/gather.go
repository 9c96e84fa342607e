package torch

import (
	"fmt"
	"math"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// assemble builds the logical tensor of shape laid out on p by nd from
// every device's shard (in placement order): each split device's range
// goes to its place, and the partial values of each partial group
// combine with their op, in position order. The devices that differ only
// in a B mesh dim are replicas: every replica set must give the same
// logical value (tensor.Agree at tensor.Tolerance), or the run is wrong.
func assemble(shape tensor.Shape, p sbp.Placement, nd sbp.NdSbp, locals []tensor.Tensor) (tensor.Tensor, error) {
	shards, err := sbp.Shards(shape, p, nd)
	if err != nil {
		return tensor.Tensor{}, err
	}
	var part sbp.SBP
	for _, s := range nd {
		if s.Kind == sbp.Partial {
			part = s
		}
	}
	n := product(shape)
	var first tensor.Tensor
	firstAt := 0
	for rep, members := range replicaSets(p, nd) {
		logical := make([]float32, n)
		if part.Kind == sbp.Partial {
			id := map[tensor.ReduceOp]float32{tensor.Sum: 0, tensor.MaxAll: float32(math.Inf(-1)), tensor.MinAll: float32(math.Inf(1))}[part.Op]
			for j := range logical {
				logical[j] = id
			}
		}
		for _, i := range members {
			sh, l := shards[i], locals[i]
			if !l.Shape().Equal(sh.Shape) {
				return tensor.Tensor{}, fmt.Errorf("rank %d's shard is %v, but the plan's is %v", sh.Rank, l.Shape(), sh.Shape)
			}
			data, err := tensor.Buffer[float32](l)
			if err != nil {
				return tensor.Tensor{}, err
			}
			forEach(sh, shape, func(j, off int) {
				switch {
				case part.Kind != sbp.Partial:
					logical[off] = data[j]
				case part.Op == tensor.Sum:
					logical[off] += data[j]
				case part.Op == tensor.MaxAll:
					logical[off] = max(logical[off], data[j])
				default:
					logical[off] = min(logical[off], data[j])
				}
			})
		}
		t, err := tensor.FromSlice(shape, logical)
		if err != nil {
			return tensor.Tensor{}, err
		}
		if rep == 0 {
			first, firstAt = t, members[0]
			continue
		}
		ag, err := tensor.Agree(t, first, tensor.Tolerance)
		if err != nil {
			return tensor.Tensor{}, err
		}
		if !ag.Agrees {
			return tensor.Tensor{}, fmt.Errorf("the replicas on rank %d and rank %d hold different values: rank %d's copy %s", p.Rank(firstAt), p.Rank(members[0]), p.Rank(members[0]), ag.Words(fmt.Sprintf("rank %d's", p.Rank(firstAt))))
		}
	}
	return first, nil
}

// replicaSets groups the positions by their coordinates on the B mesh
// dims: each set holds one whole copy of the tensor (split and partial
// among its members). Sets come in position order.
func replicaSets(p sbp.Placement, nd sbp.NdSbp) [][]int {
	var sets [][]int
	index := map[string]int{}
	for i := range p.Size() {
		c := p.Coord(i)
		key := ""
		for m, s := range nd {
			if s.Kind == sbp.Broadcast {
				key += fmt.Sprintf("%d,", c[m])
			}
		}
		k, ok := index[key]
		if !ok {
			k = len(sets)
			index[key] = k
			sets = append(sets, nil)
		}
		sets[k] = append(sets[k], i)
	}
	return sets
}
