package cluster

import (
	"errors"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// TestOpWork: every op's FLOPs and bytes on one device's shards, written
// out by hand (float32: 4 bytes an element).
func TestOpWork(t *testing.T) {
	cases := []struct {
		op         sbp.Op
		in         []tensor.Shape
		out        tensor.Shape
		flops, mem float64
	}{
		// matmul [m,k]·[k,n]: 2·m·k·n
		{sbp.Matmul(), []tensor.Shape{{64, 32}, {32, 16}}, tensor.Shape{64, 16}, 2 * 64 * 32 * 16, 4 * (64*32 + 32*16 + 64*16)},
		{sbp.Matmul(), []tensor.Shape{{1, 1}, {1, 1}}, tensor.Shape{1, 1}, 2, 4 * 3},
		{sbp.Matmul(), []tensor.Shape{{0, 8}, {8, 4}}, tensor.Shape{0, 4}, 0, 4 * 32},
		// batched [..., m, k]·[..., k, n]: 2·batch·m·k·n, batch the
		// output's (a matrix broadcast against a batch counts each use)
		{sbp.Matmul(), []tensor.Shape{{2, 8, 16}, {2, 16, 8}}, tensor.Shape{2, 8, 8}, 2 * 2 * 8 * 16 * 8, 4 * (2*8*16 + 2*16*8 + 2*8*8)},
		{sbp.Matmul(), []tensor.Shape{{3, 1, 4, 5}, {2, 5, 6}}, tensor.Shape{3, 2, 4, 6}, 2 * 6 * 4 * 5 * 6, 4 * (3*4*5 + 2*5*6 + 6*4*6)},
		{sbp.Matmul(), []tensor.Shape{{4, 5}, {3, 5, 2}}, tensor.Shape{3, 4, 2}, 2 * 3 * 4 * 5 * 2, 4 * (4*5 + 3*5*2 + 3*4*2)},
		// elementwise: one per output element
		{sbp.Binary(tensor.Add), []tensor.Shape{{8, 4}, {1, 4}}, tensor.Shape{8, 4}, 32, 4 * (32 + 4 + 32)},
		{sbp.Binary(tensor.Eq), []tensor.Shape{{3}, {3}}, tensor.Shape{3}, 3, 4 * 9},
		{sbp.Scale(2), []tensor.Shape{{5, 7}}, tensor.Shape{5, 7}, 35, 4 * 70},
		{sbp.Unary(tensor.Exp), []tensor.Shape{{5, 7}}, tensor.Shape{5, 7}, 35, 4 * 70},
		{sbp.Unary(tensor.Relu), []tensor.Shape{{3}}, tensor.Shape{3}, 3, 4 * 6},
		// reductions: one per input element; mean one more per output
		{sbp.Reduce(tensor.Sum, tensor.Shape{1, 4}), []tensor.Shape{{8, 4}}, tensor.Shape{1, 4}, 32, 4 * (32 + 4)},
		{sbp.Mean(tensor.Shape{8, 4}, tensor.Shape{1, 4}), []tensor.Shape{{8, 4}}, tensor.Shape{1, 4}, 32 + 4, 4 * (32 + 4)},
		// softmax: five per element (max, sub, exp, add, div)
		{sbp.Softmax(-1), []tensor.Shape{{8, 4}}, tensor.Shape{8, 4}, 5 * 32, 4 * 64},
		{sbp.RepeatGrad([]int{2, 1}, tensor.Shape{3, 4}), []tensor.Shape{{6, 4}}, tensor.Shape{3, 4}, 24, 4 * (24 + 12)},
		// copies: no FLOPs, their bytes
		{sbp.Expand([]int{4, 3}), []tensor.Shape{{1, 3}}, tensor.Shape{4, 3}, 0, 4 * (3 + 12)},
		{sbp.Repeat([]int{2, 2}), []tensor.Shape{{2, 3}}, tensor.Shape{4, 6}, 0, 4 * (6 + 24)},
		{sbp.Transpose(), []tensor.Shape{{2, 3}}, tensor.Shape{3, 2}, 0, 4 * 12},
	}
	for _, c := range cases {
		w, err := OpWork(c.op, c.in, c.out, tensor.F32)
		if err != nil {
			t.Errorf("%v on %v: %v", c.op, c.in, err)
			continue
		}
		if w.FLOPs != c.flops || w.Bytes != c.mem {
			t.Errorf("%v on %v -> %v: got %g FLOPs and %g bytes, want %g and %g", c.op, c.in, c.out, w.FLOPs, w.Bytes, c.flops, c.mem)
		}
	}
}

// TestOpWorkRefuses: arguments the FLOP table cannot count.
func TestOpWorkRefuses(t *testing.T) {
	cases := []struct {
		op   sbp.Op
		in   []tensor.Shape
		out  tensor.Shape
		pr   tensor.Precision
		want string
	}{
		{sbp.Matmul(), []tensor.Shape{{4, 3}}, tensor.Shape{4, 4}, tensor.F32, "cluster: matmul takes 2 inputs, got 1 shapes"},
		{sbp.Matmul(), []tensor.Shape{{4, 3}, {2, 4}}, tensor.Shape{4, 4}, tensor.F32, "cluster: matmul of shards [4 3] and [2 4] into [4 4]: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's"},
		{sbp.Matmul(), []tensor.Shape{{4, 3, 1}, {3, 4}}, tensor.Shape{4, 4}, tensor.F32, "cluster: matmul of shards [4 3 1] and [3 4] into [4 4]: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's"},
		{sbp.Matmul(), []tensor.Shape{{3}, {3, 4}}, tensor.Shape{4}, tensor.F32, "cluster: matmul of shards [3] and [3 4] into [4]: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's"},
		{sbp.Matmul(), []tensor.Shape{{2, 4, 3}, {3, 3, 4}}, tensor.Shape{2, 4, 4}, tensor.F32, "cluster: matmul of shards [2 4 3] and [3 3 4] into [2 4 4]: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's"},
		{sbp.Matmul(), []tensor.Shape{{2, 4, 3}, {3, 4}}, tensor.Shape{1, 4, 4}, tensor.F32, "cluster: matmul of shards [2 4 3] and [3 4] into [1 4 4]: they must be [..., m, k] and [..., k, n], with batch dims that broadcast to the output's"},
		{sbp.Scale(2), []tensor.Shape{{-1}}, tensor.Shape{1}, tensor.F32, "cluster: scale: the shard shape [-1] has a negative size"},
		{sbp.Scale(2), []tensor.Shape{{1}}, tensor.Shape{1}, tensor.Precision(99), "cluster: scale: unknown precision Precision(99)"},
		{alien{}, []tensor.Shape{{1}}, tensor.Shape{1}, tensor.F32, `cluster: no FLOP count for the op "conv"`},
	}
	for _, c := range cases {
		_, err := OpWork(c.op, c.in, c.out, c.pr)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrUnsupported) {
			t.Errorf("OpWork(%v, %v) = %v, want %q", c.op, c.in, err, c.want)
		}
	}
}

// alien is an op made outside package sbp: the FLOP table has no row.
type alien struct{ sbp.Op }

func (alien) Name() string { return "conv" }
func (alien) Arity() int   { return 1 }

// TestRoofline: each bound, by hand, on an H100's numbers.
func TestRoofline(t *testing.T) {
	h100, _ := Preset("h100-node")
	d := h100.Device
	cases := []struct {
		w    Work
		time float64
		b    Bound
	}{
		// a small matmul: 65536 FLOPs, 14336 bytes: memory bound
		{Work{65536, 14336}, 14336 / 3.35e12, MemoryBound},
		// a 4096³ matmul: 2·4096³ FLOPs, 3·4096²·4 bytes: compute bound
		{Work{2 * 4096 * 4096 * 4096, 3 * 4096 * 4096 * 4}, 2 * 4096 * 4096 * 4096 / 6.7e13, ComputeBound},
		// an add: one FLOP per 12 bytes, far below the ridge (20 FLOP/byte)
		{Work{1 << 20, 12 << 20}, (12 << 20) / 3.35e12, MemoryBound},
		// exactly on the ridge: memory (ties go to memory)
		{Work{6.7e13, 3.35e12}, 1, MemoryBound},
		// nothing to do
		{Work{0, 0}, 0, MemoryBound},
	}
	for _, c := range cases {
		r := d.Roofline(c.w, tensor.F32)
		if !near(r.TimeS, c.time) || r.Bound != c.b || r.ComputeS != c.w.FLOPs/d.FLOPs || r.MemoryS != c.w.Bytes/d.MemBytes {
			t.Errorf("Roofline(%+v) = %+v, want %g s, %s bound", c.w, r, c.time, c.b)
		}
	}
}

// TestRooflinePrecision: a 16-bit op runs at the chip's 16-bit peak
// (flops16_per_s) where it has one and moves 2 bytes an element; f32 and
// a chip without a 16-bit peak use flops_per_s.
func TestRooflinePrecision(t *testing.T) {
	h100, _ := Preset("h100-node")
	w := Work{FLOPs: 2 * 4096 * 4096 * 4096}
	for _, c := range []struct {
		d    Device
		p    tensor.Precision
		peak float64
	}{
		{h100.Device, tensor.F32, 6.7e13}, {h100.Device, tensor.BF16, 9.89e14}, {h100.Device, tensor.F16, 9.89e14},
		{Device{FLOPs: 1e12, MemBytes: 1, MemCapacity: 1}, tensor.BF16, 1e12},
	} {
		if r := c.d.Roofline(w, c.p); !near(r.ComputeS, w.FLOPs/c.peak) {
			t.Errorf("%v on %+v: compute %g s, want %g", c.p, c.d, r.ComputeS, w.FLOPs/c.peak)
		}
	}
	half, _ := OpWork(sbp.Unary(tensor.Exp), []tensor.Shape{{8}}, tensor.Shape{8}, tensor.BF16)
	full, _ := OpWork(sbp.Unary(tensor.Exp), []tensor.Shape{{8}}, tensor.Shape{8}, tensor.F32)
	if half.Bytes != 32 || full.Bytes != 64 {
		t.Errorf("exp of 8 elements moves %g bytes in bf16 and %g in f32, want 32 and 64", half.Bytes, full.Bytes)
	}
}

// TestTimeOp: a matmul whose rows split unevenly over 4 devices (10 rows:
// 3, 3, 2, 2): the first device has the most work and decides.
func TestTimeOp(t *testing.T) {
	c := Cluster{Name: "slow", Links: []Link{{Alpha: 1e-6, Beta: 1e9}}, Device: Device{FLOPs: 1e9, MemBytes: 1e9, MemCapacity: 1e9}}
	p, _ := sbp.ParsePlacement("4")
	plan, err := sbp.PlanOp(sbp.Matmul(), []tensor.Shape{{10, 8}, {8, 6}}, p, []sbp.NdSbp{{sbp.S(0)}, {sbp.B}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := TimeOp(c, sbp.Matmul(), plan, tensor.F32)
	if err != nil {
		t.Fatal(err)
	}
	// rank 0: 2·3·8·6 = 288 FLOPs; 4·(3·8 + 8·6 + 3·6) = 360 bytes
	if got.Rank != 0 || got.FLOPs != 288 || got.Bytes != 360 || !near(got.TimeS, 360/1e9) || got.Bound != MemoryBound {
		t.Fatalf("TimeOp = %+v, want rank 0 with 288 FLOPs, 360 bytes, 3.6e-7 s, memory bound", got.RankTime)
	}
	if len(got.Ranks) != 4 || got.Ranks[3].FLOPs != 2*2*8*6 {
		t.Fatalf("per rank: %+v", got.Ranks)
	}
	two, _ := Preset("two-h100-nodes")
	if _, err := TimeOp(two, sbp.Matmul(), plan, tensor.F32); !errors.Is(err, ErrMesh) {
		t.Fatalf("TimeOp on a cluster of 2 links for a 1-D placement = %v, want ErrMesh", err)
	}
}
