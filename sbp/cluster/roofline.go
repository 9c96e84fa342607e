package cluster

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Work is what one device does for one op on its shards: the FLOPs it
// computes and the bytes it reads and writes in its own memory.
type Work struct {
	FLOPs float64 `json:"flops"`
	Bytes float64 `json:"mem_bytes"`
}

// Bound names the side of the roofline an op is on.
type Bound string

const (
	// ComputeBound: FLOPs / peak is the larger time.
	ComputeBound Bound = "compute"
	// MemoryBound: bytes / bandwidth is the larger time, or they are equal.
	MemoryBound Bound = "memory"
)

// Roof is an op's time on one device by the roofline.
type Roof struct {
	ComputeS float64 `json:"compute_s"` // FLOPs / flops_per_s
	MemoryS  float64 `json:"memory_s"`  // bytes / mem_bytes_per_s
	TimeS    float64 `json:"time_s"`    // the larger of the two
	Bound    Bound   `json:"bound"`     // which one it is
}

// Roofline returns the time of w on d in precision p, the larger of its
// compute time and its memory time (the JAX scaling book's roofline):
//
//	T = max(FLOPs / peak(p), bytes / mem_bytes_per_s)
//
// with peak(p) flops16_per_s for a 16-bit float (Device.Peak), else
// flops_per_s. Bound is ComputeBound when the compute time is strictly
// the larger, else MemoryBound. d must be valid (Cluster.Validate).
func (d Device) Roofline(w Work, p tensor.Precision) Roof {
	r := Roof{ComputeS: w.FLOPs / d.Peak(p), MemoryS: w.Bytes / d.MemBytes, Bound: MemoryBound}
	r.TimeS = r.MemoryS
	if r.ComputeS > r.MemoryS {
		r.TimeS, r.Bound = r.ComputeS, ComputeBound
	}
	return r
}

// Peak is d's peak FLOP/s in precision p: FLOPs16 for bf16 and f16
// where d has one, else FLOPs.
func (d Device) Peak(p tensor.Precision) float64 {
	if p.Half() && d.FLOPs16 > 0 {
		return d.FLOPs16
	}
	return d.FLOPs
}

// flopCounts is the one table of FLOP counts per op, for one device's
// input shards in and output shard out: a new op is a row. Names are
// sbp's Op.Name; the binary ops (add … eq) share one row, and the unary
// ops (exp … step) another.
var flopCounts = map[string]func(in []tensor.Shape, out tensor.Shape) float64{
	// matmul of an [..., m, k] shard by a [..., k, n] shard: batch·m·n
	// dot products of length k (batch the product of the output's batch
	// dims, broadcast), a multiply and an add each: 2·batch·m·k·n.
	"matmul": func(in []tensor.Shape, out tensor.Shape) float64 {
		return 2 * elems(out) * float64(in[0][len(in[0])-1])
	},
	// matmul with transpose flags (the backward's): the same count, k
	// read as a's matrix over the output's m rows, whichever way a lies.
	"matmul_t": func(in []tensor.Shape, out tensor.Shape) float64 {
		a, r := in[0], len(out)
		if out[r-2] == 0 {
			return 0
		}
		return 2 * elems(out) * float64(a[len(a)-1]*a[len(a)-2]/out[r-2])
	},
	// broadcast_matmul_grad_b: a^T·dy over every row of the batch,
	// [M, k] by [M, n]: 2·M·k·n.
	"broadcast_matmul_grad_b": func(in []tensor.Shape, out tensor.Shape) float64 {
		return 2 * elems(in[0]) * float64(out[1])
	},
	// elementwise: one per output element (exp, log, tanh and rsqrt take
	// a few instructions each on a GPU's special-function units; counted
	// as one, like the rest, since their time is their bytes).
	"binary": func(in []tensor.Shape, out tensor.Shape) float64 { return elems(out) },
	"unary":  func(in []tensor.Shape, out tensor.Shape) float64 { return elems(out) },
	"scale":  func(in []tensor.Shape, out tensor.Shape) float64 { return elems(out) },
	// a unary op's gradient: the derivative and its product with dy,
	// counted as two; softmax_grad four (dy·y, its line's sum, the
	// subtraction, the product with y).
	"unary_grad":   func(in []tensor.Shape, out tensor.Shape) float64 { return 2 * elems(out) },
	"softmax_grad": func(in []tensor.Shape, out tensor.Shape) float64 { return 4 * elems(out) },
	// reductions: one per input element (each is combined once); mean
	// one more per output, its division.
	"reduce":      func(in []tensor.Shape, out tensor.Shape) float64 { return elems(in[0]) },
	"mean":        func(in []tensor.Shape, out tensor.Shape) float64 { return elems(in[0]) + elems(out) },
	"repeat_grad": func(in []tensor.Shape, out tensor.Shape) float64 { return elems(in[0]) },
	// reduce_sum_like sums its x (its like is read for its shape alone).
	"reduce_sum_like": func(in []tensor.Shape, out tensor.Shape) float64 { return elems(in[0]) },
	// softmax: five per element, a compare for the line's max, a
	// subtraction, an exp, an add to the line's sum and a division.
	"softmax": func(in []tensor.Shape, out tensor.Shape) float64 { return 5 * elems(in[0]) },
	// copies compute nothing; their time is their bytes.
	"expand":         func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"broadcast_like": func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"repeat":         func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"transpose":      func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"permute":        func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"reshape":        func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"slice":          func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"slice_grad":     func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"cat":            func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	// gather copies rows; its backward adds each row of dy into its
	// id's row: one per dy element.
	"gather":                    func(in []tensor.Shape, out tensor.Shape) float64 { return 0 },
	"unsorted_segment_sum_like": func(in []tensor.Shape, out tensor.Shape) float64 { return elems(in[0]) },
}

// OpWork returns the work of op on one device whose input shards have
// the shapes in and whose output shard has shape out, elements of
// precision p:
//
//	FLOPs  matmul (with or without transpose flags) 2·batch·m·k·n,
//	       broadcast_matmul_grad_b 2·M·k·n; add … eq, exp … step and
//	       scale one per output element, a unary op's _grad two,
//	       softmax_grad four; reduce, reduce_sum_like and repeat_grad
//	       one per input element, mean one more per output; softmax
//	       five per element; expand, broadcast_like, repeat, transpose,
//	       permute, reshape, slice, slice_grad, cat and gather 0;
//	       unsorted_segment_sum_like one
//	       per dy element
//	bytes  p.Bytes() · (Σ input shard elements + output shard elements):
//	       each input read once (a like op's like not at all; of
//	       gather's table the rows looked up, its output's worth) and
//	       the output written once, the least traffic any kernel needs
//
// An op without a row in the table, a wrong number of shapes or a
// matmul's shards that are not [..., m, k] and [..., k, n] giving out is
// an error wrapping
// ErrUnsupported.
func OpWork(op sbp.Op, in []tensor.Shape, out tensor.Shape, p tensor.Precision) (Work, error) {
	name := op.Name()
	row := name
	switch par := sbp.Params(op); {
	case par.Binary != 0:
		row = "binary"
	case par.Unary != 0 && name == par.Unary.String():
		row = "unary"
	case par.Unary != 0:
		row = "unary_grad"
	}
	count, ok := flopCounts[row]
	if !ok {
		return Work{}, newError(ErrUnsupported, "", "", "no FLOP count for the op %q", name)
	}
	if p.Bytes() == 0 || p > tensor.I32 {
		return Work{}, newError(ErrUnsupported, "", "", "%s: unknown precision %v", name, p)
	}
	if len(in) != op.Arity() {
		return Work{}, newError(ErrUnsupported, "", "", "%s takes %d inputs, got %d shapes", name, op.Arity(), len(in))
	}
	for _, s := range append(append([]tensor.Shape{}, in...), out) {
		for _, d := range s {
			if d < 0 {
				return Work{}, newError(ErrUnsupported, "", "", "%s: the shard shape %v has a negative size", name, s)
			}
		}
	}
	if name == "matmul" {
		if want, err := op.OutShape(in); err != nil || !want.Equal(out) {
			return Work{}, newError(ErrUnsupported, "", "", "matmul of shards %v and %v into %v: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's", in[0], in[1], out)
		}
	}
	bytes := elems(out)
	for j, s := range in {
		switch {
		case j == sbp.LikeArg(op):
			continue // like: its shape alone is read
		case name == "gather" && j == 0:
			bytes += elems(out) // the table: only the rows looked up, the output's worth
			continue
		}
		bytes += elems(s)
	}
	return Work{FLOPs: count(in, out), Bytes: bytes * float64(p.Bytes())}, nil
}

// elems is the number of elements of s, as a float64 (no overflow).
func elems(s tensor.Shape) float64 {
	n := 1.0
	for _, d := range s {
		n *= float64(d)
	}
	return n
}

// RankTime is an op's work and roofline time on one device.
type RankTime struct {
	Rank int `json:"rank"`
	Work
	Roof
}

// OpTime is an op's time on a cluster: every device's, and the slowest,
// which decides the step (the devices run at once).
type OpTime struct {
	RankTime            // the slowest device (the first of the slowest on a tie)
	Ranks    []RankTime `json:"ranks"`
}

// TimeOp times the op of plan (sbp.PlanOp's physical rewrite of op) on
// c's device: each device's OpWork on its own shards and its Roofline,
// the slowest device deciding,
//
//	T = max_ranks max(FLOPs_r / peak(p), bytes_r / mem_bytes_per_s)
//
// in precision p (Device.Roofline). c must fit the plan's placement
// (Cluster.Check).
func TimeOp(c Cluster, op sbp.Op, plan sbp.OpPlan, p tensor.Precision) (OpTime, error) {
	if err := c.Check(plan.Placement); err != nil {
		return OpTime{}, err
	}
	var out OpTime
	for i, r := range plan.Ranks {
		in, err := plan.LocalInShapes(i)
		if err != nil {
			return OpTime{}, err
		}
		w, err := OpWork(op, in, r.OutShape, p)
		if err != nil {
			return OpTime{}, err
		}
		rt := RankTime{Rank: r.Rank, Work: w, Roof: c.Device.Roofline(w, p)}
		out.Ranks = append(out.Ranks, rt)
		if i == 0 || rt.TimeS > out.TimeS {
			out.RankTime = rt
		}
	}
	return out, nil
}
