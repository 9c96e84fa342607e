package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// Footprint is the memory a simulated run holds for a global tensor: every
// device's shard buffer, added up over the placement,
//
//	bytes = dt.Size() · Σ_rank Π shard(rank).Shape
//
// so B on n devices costs n full copies and S(i) one. It fails with
// tensor.ErrOverflow past 2^63 bytes.
func Footprint(shape tensor.Shape, dt tensor.DType, p Placement, nd NdSbp) (int64, error) {
	shards, err := Shards(shape, p, nd)
	if err != nil {
		return 0, err
	}
	op := fmt.Sprintf("%v %v as %v on %v", dt, shape, nd, p)
	var total int64
	for _, sh := range shards {
		b, err := tensor.ResultBytes(dt, sh.Shape)
		if err == nil {
			total, err = tensor.AddBytes(op, total, b)
		}
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}

// checkFootprint asks the result limit (tensor.CheckBytes) whether all
// the devices' shards of a tensor laid out by nd fit together before a
// simulated run allocates them; op names the operation for the error.
func checkFootprint(op string, shape tensor.Shape, dt tensor.DType, p Placement, nd NdSbp) error {
	bytes, err := Footprint(shape, dt, p, nd)
	if err != nil {
		return err
	}
	return tensor.CheckBytes(op, fmt.Sprintf("%v %v as %v on %d devices", dt, shape, nd, p.Size()), bytes, "every device's shard together")
}
