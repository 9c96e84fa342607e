package torch

import (
	"math"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// spreadLimit bounds the values a P(sum) input is spread over its
// devices: whole numbers of at most 2^20 stay whole, so v - Σc + Σc = v
// exactly in float32 (24-bit significand).
const spreadLimit = 1 << 20

// inputShards cuts the logical value full into every device's shard, as
// nd lays it out. A split device holds its range; under P the devices of
// each partial group (those that differ only on the P mesh dims) hold
// partial values that combine to full: for P(max) (P(min)) the first
// device of the group holds the value and the others values below
// (above) it; for P(sum) the others hold -1, 0 or 1 by element and the
// first the value less their sum. A device's part depends only on its
// coordinates on the P mesh dims, so the replicas along a B mesh dim
// hold the same values, as B requires. When a P(sum) input is not made
// of small whole numbers, spreading it would round: its first device
// holds the value and the others 0, as sbp.Scatter lays it out, and the
// note says so.
func inputShards(full tensor.Tensor, p sbp.Placement, nd sbp.NdSbp) ([]tensor.Tensor, string, error) {
	shards, err := sbp.Shards(full.Shape(), p, nd)
	if err != nil {
		return nil, "", err
	}
	if full.DType() == tensor.Int32 {
		out, err := idsShards(full, shards)
		return out, "", err
	}
	var part sbp.SBP
	peers := 1 // the devices of a partial group
	for m, s := range nd {
		if s.Kind == sbp.Partial {
			part, peers = s, peers*p.Hierarchy()[m]
		}
	}
	data, err := tensor.Buffer[float32](full)
	if err != nil {
		return nil, "", err
	}
	spread, note := true, ""
	if part.Kind == sbp.Partial && part.Op == tensor.Sum {
		for _, v := range data[:full.NumElements()] {
			if v != float32(math.Trunc(float64(v))) || math.Abs(float64(v)) > spreadLimit {
				spread, note = false, "P(sum) laid out as sbp.Scatter does (the first device of each partial group holds the value, the others 0): its values are not whole numbers of at most 2^20, which spreading could round"
				break
			}
		}
	}
	out := make([]tensor.Tensor, len(shards))
	for i, sh := range shards {
		local := make([]float32, product(sh.Shape))
		forEach(sh, full.Shape(), func(j, off int) { local[j] = data[off] })
		if q := partialIndex(p, nd, i); sh.Partial {
			for j := range local {
				switch {
				case !spread && q > 0:
					local[j] = 0
				case !spread:
				case part.Op == tensor.Sum && q == 0:
					for o := 1; o < peers; o++ {
						local[j] -= sumPart(j, o)
					}
				case part.Op == tensor.Sum:
					local[j] = sumPart(j, q)
				case q > 0 && part.Op == tensor.MaxAll:
					local[j] -= float32(1 + (j+q)%2)
				case q > 0:
					local[j] += float32(1 + (j+q)%2)
				}
			}
		}
		t, err := tensor.FromSlice(sh.Shape, local)
		if err != nil {
			for _, o := range out[:i] {
				o.Release()
			}
			return nil, "", err
		}
		out[i] = t
	}
	return out, note, nil
}

// idsShards cuts int32 ids into the shards, split or whole (ids are
// never partial: program's intLayout).
func idsShards(full tensor.Tensor, shards []sbp.Shard) ([]tensor.Tensor, error) {
	data, err := tensor.Buffer[int32](full)
	if err != nil {
		return nil, err
	}
	out := make([]tensor.Tensor, len(shards))
	for i, sh := range shards {
		local := make([]int32, product(sh.Shape))
		forEach(sh, full.Shape(), func(j, off int) { local[j] = data[off] })
		if out[i], err = tensor.FromSlice(sh.Shape, local); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sumPart is what the device of partial index q holds of element j of a
// spread P(sum) input: -1, 0 or 1.
func sumPart(j, q int) float32 { return float32((j+q)%3 - 1) }

// partialIndex numbers the device at position i within its partial
// group: its coordinates on the P mesh dims, read as a mixed-radix
// number (0: the group's first device, which keeps the value).
func partialIndex(p sbp.Placement, nd sbp.NdSbp, i int) int {
	c, h := p.Coord(i), p.Hierarchy()
	q := 0
	for m, s := range nd {
		if s.Kind == sbp.Partial {
			q = q*h[m] + c[m]
		}
	}
	return q
}

// product is the number of elements of shape.
func product(shape tensor.Shape) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// forEach calls fn(j, off) for every element of the shard: j its index in
// the shard's own buffer, off its offset in the logical tensor of shape
// (both C order).
func forEach(sh sbp.Shard, shape tensor.Shape, fn func(j, off int)) {
	n := product(sh.Shape)
	if n == 0 {
		return
	}
	strides := tensor.ContiguousStrides(shape)
	idx := make([]int, len(sh.Shape))
	for j := range n {
		off := 0
		for d, i := range idx {
			off += (sh.Lo[d] + i) * strides[d]
		}
		fn(j, off)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < sh.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}
