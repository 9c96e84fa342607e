package torch

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// values is a float32 tensor of shape holding whole numbers from -5 to 5
// (equal pairs for eq, zeros for div, negatives for max and min), drawn
// by seed.
func values(t *testing.T, shape tensor.Shape, seed int) tensor.Tensor {
	t.Helper()
	data := make([]float32, product(shape))
	for i := range data {
		data[i] = float32((i*7+seed)%11 - 5)
	}
	v, err := tensor.FromSlice(shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// opCase is an op on inputs of some shapes: every valid way it runs on a
// placement (sbp.Candidates) is a step of the job.
type opCase struct {
	op     sbp.Op
	shapes []tensor.Shape
}

// opCases has every op kind, on shapes that split unevenly over 2, 3 and
// 4 devices (5 and 7), with broadcasting, reduced and kept axes, new
// leading dims and dims of copies.
var opCases = []opCase{
	{sbp.Expand([]int{2, 5, 4, 3}), []tensor.Shape{{5, 1, 3}}},
	{sbp.Repeat([]int{2, 1, 3, 2}), []tensor.Shape{{5, 1, 3}}},
	{sbp.Reduce(tensor.Sum, tensor.Shape{1, 7}), []tensor.Shape{{5, 7}}},
	{sbp.Reduce(tensor.Sum, tensor.Shape{7}), []tensor.Shape{{5, 7}}},
	{sbp.Reduce(tensor.MaxAll, tensor.Shape{5, 1}), []tensor.Shape{{5, 7}}},
	{sbp.Reduce(tensor.MinAll, tensor.Shape{}), []tensor.Shape{{5, 7}}},
	{sbp.Binary(tensor.Add), []tensor.Shape{{5, 7}, {7}}},
	{sbp.Binary(tensor.Sub), []tensor.Shape{{5, 1}, {1, 7}}},
	{sbp.Binary(tensor.Mul), []tensor.Shape{{5, 7}, {5, 7}}},
	{sbp.Binary(tensor.Div), []tensor.Shape{{5, 7}, {5, 1}}},
	{sbp.Binary(tensor.Max), []tensor.Shape{{5, 7}, {5, 7}}},
	{sbp.Binary(tensor.Min), []tensor.Shape{{7}, {5, 7}}},
	{sbp.Binary(tensor.Eq), []tensor.Shape{{5, 7}, {5, 7}}},
	{sbp.Matmul(), []tensor.Shape{{5, 7}, {7, 3}}},
	{sbp.Transpose(), []tensor.Shape{{5, 7}}},
	{sbp.Scale(2.5), []tensor.Shape{{5, 7}}},
	{sbp.Scale(-1), []tensor.Shape{{5, 7}}},
	{sbp.RepeatGrad([]int{2, 1, 3}, tensor.Shape{5, 1}), []tensor.Shape{{2, 5, 3}}},
	// 2 over 3 or 4 devices leaves some shards empty: a max over an
	// empty part is its identity, -Inf.
	{sbp.Reduce(tensor.MaxAll, tensor.Shape{1, 3}), []tensor.Shape{{2, 3}}},
	{sbp.Matmul(), []tensor.Shape{{2, 3}, {3, 2}}},
	{sbp.Binary(tensor.Add), []tensor.Shape{{2, 3}, {3}}},
	// the unary ops (exp's P(max) and P(min) among their signatures;
	// log, sqrt and rsqrt of the negatives and zeros are NaN and ±Inf on
	// both sides) and mean, over kept, reduced and every dim.
	{sbp.Unary(tensor.Exp), []tensor.Shape{{5, 7}}},
	{sbp.Unary(tensor.Log), []tensor.Shape{{5, 7}}},
	{sbp.Unary(tensor.Neg), []tensor.Shape{{5, 7}}},
	{sbp.Unary(tensor.Sqrt), []tensor.Shape{{7}}},
	{sbp.Unary(tensor.Rsqrt), []tensor.Shape{{5, 7}}},
	{sbp.Unary(tensor.Tanh), []tensor.Shape{{7, 5}}},
	{sbp.Unary(tensor.Relu), []tensor.Shape{{5, 7}}},
	{sbp.Unary(tensor.Step), []tensor.Shape{{2, 3}}},
	{sbp.Mean(tensor.Shape{5, 7}, tensor.Shape{1, 7}), []tensor.Shape{{5, 7}}},
	{sbp.Mean(tensor.Shape{5, 7}, tensor.Shape{5, 1}), []tensor.Shape{{5, 7}}},
	{sbp.Mean(tensor.Shape{5, 7}, tensor.Shape{}), []tensor.Shape{{5, 7}}},
	// the layer ops: transpose of a batch, permute to heads
	{sbp.Transpose(), []tensor.Shape{{2, 5, 3}}},
	{sbp.Permute([]int{2, 0, 1}), []tensor.Shape{{5, 3, 2}}},
	// batched matmul: a batch of 3 (uneven on 2 and 4), a size-1 and an
	// absent batch dim broadcast, a matrix times a batch
	{sbp.Matmul(), []tensor.Shape{{3, 2, 4}, {3, 4, 2}}},
	{sbp.Matmul(), []tensor.Shape{{3, 1, 2, 3}, {2, 3, 2}}},
	{sbp.Matmul(), []tensor.Shape{{2, 3}, {5, 3, 2}}},
	// softmax along the last dim (negative), the first, and a middle one:
	// every other dim split unevenly, and B.
	{sbp.Softmax(-1), []tensor.Shape{{5, 7}}},
	{sbp.Softmax(0), []tensor.Shape{{5, 7}}},
	{sbp.Softmax(1), []tensor.Shape{{2, 5, 3}}},
}

// reshapeCases are reshapes that flatten ([7 3] -> [21], uneven on 2
// to 4 devices, so its split runs only on one), split a dim ([6 4] -> [3
// 2 4], whose S(0) holds where 3 divides) and keep one (S(0) of [4 3 2]
// -> [4 6]): each signature that holds on the mesh, each rank reshaping
// to its own output shard.
var reshapeCases = []opCase{
	{sbp.Reshape([]int{21}), []tensor.Shape{{7, 3}}},
	{sbp.Reshape([]int{3, 2, 4}), []tensor.Shape{{6, 4}}},
	{sbp.Reshape([]int{-1, 6}), []tensor.Shape{{4, 3, 2}}},
}

// boxingShapes are the shapes every boxing case boxes: 2 over 3 or 4
// devices leaves some shards empty.
var boxingShapes = []tensor.Shape{{5, 7}, {2, 3}}

// boxingSbps are the 1-D SBPs every boxing case goes between.
var boxingSbps = []string{"S(0)", "S(1)", "B", "P(sum)", "P(max)", "P(min)"}

// check is one step of a coverage job whose gathered value is compared.
type check struct {
	what  string
	step  int
	shape tensor.Shape
	nd    sbp.NdSbp
	want  tensor.Tensor // the single device's value
	sim   tensor.Tensor // the simulated devices' value (sbp.Apply or Box, gathered)
	box   *sbp.Boxing   // a boxing's plan: its bytes are checked too
}

// coverage builds one job on p: every op case of ops under every valid
// signature, and every boxing between the SBPs given of tensors of
// boxingShapes.
func coverage(t *testing.T, p sbp.Placement, ops []opCase, boxings []sbp.NdSbp) (*builder, []check) {
	t.Helper()
	b := newBuilder(p, DefaultTimeout.Seconds())
	var checks []check
	n := 0
	name := func(kind string) string { n++; return fmt.Sprintf("%s%d", kind, n) }
	cpu := tensor.CPU{}
	for _, oc := range ops {
		cands, err := sbp.Candidates(oc.op, oc.shapes, p)
		if err != nil {
			t.Fatalf("%v on %v: %v", oc.op, p, err)
		}
		fulls := make([]tensor.Tensor, len(oc.shapes))
		for i, sh := range oc.shapes {
			fulls[i] = values(t, sh, 3*i+len(checks))
		}
		out, _ := oc.op.OutShape(oc.shapes)
		want, err := oc.op.Local(cpu, fulls, out)
		if err != nil {
			t.Fatalf("%v: %v", oc.op, err)
		}
		for _, c := range cands {
			var reads []string
			var globals []*sbp.Global
			for i, v := range fulls {
				r := name("in")
				if err := b.input(r, v, c.In[i]); err != nil {
					t.Fatalf("%v input %d as %v: %v", oc.op, i, c.In[i], err)
				}
				reads = append(reads, r)
				g, err := sbp.Scatter(cpu, v, p, c.In[i])
				if err != nil {
					t.Fatal(err)
				}
				globals = append(globals, g)
			}
			what := fmt.Sprintf("%v %v with %v -> %v on %v", oc.op, oc.shapes, c.In, c.Out, p)
			plan, err := b.op(name("op"), oc.op, reads, c.In, c.Out)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			g, err := sbp.ApplyAs(oc.op, c.Out, globals...)
			sim := simFull(t, what, g, err)
			checks = append(checks, check{what: what, step: saveLast(b), shape: plan.OutShape, nd: plan.OutSbp, want: want, sim: sim})
		}
	}
	for _, shape := range boxingShapes {
		for _, from := range boxings {
			for _, to := range boxings {
				if sbp.Validate(shape, p, from) != nil || sbp.Validate(shape, p, to) != nil {
					continue
				}
				checks = append(checks, boxCheck(t, b, name, shape, from, to, len(checks)))
			}
		}
	}
	return b, checks
}

// boxCheck appends the boxing of a tensor of shape from one nd-SBP to
// another, and returns its check.
func boxCheck(t *testing.T, b *builder, name func(string) string, shape tensor.Shape, from, to sbp.NdSbp, seed int) check {
	t.Helper()
	value := values(t, shape, seed)
	in := name("in")
	if err := b.input(in, value, from); err != nil {
		t.Fatal(err)
	}
	what := fmt.Sprintf("box %v from %v to %v on %v", shape, from, to, b.p)
	bx, err := b.boxing(name("box"), in, to)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	g, err := sbp.Scatter(tensor.CPU{}, value, b.p, from)
	if err != nil {
		t.Fatal(err)
	}
	boxed, _, err := g.Box(to)
	sim := simFull(t, what, boxed, err)
	return check{what: what, step: saveLast(b), shape: shape, nd: to, want: value, sim: sim, box: &bx}
}

// simFull is the simulated devices' value of g, made with err.
func simFull(t *testing.T, what string, g *sbp.Global, err error) tensor.Tensor {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: sim: %v", what, err)
	}
	v, err := g.Full()
	if err != nil {
		t.Fatalf("%s: sim: %v", what, err)
	}
	return v
}

// saveLast asks for the shards of the job's last step, and returns its
// index.
func saveLast(b *builder) int {
	step := len(b.job.Steps) - 1
	b.save(step)
	return step
}

// runCoverage runs the job on testPool's workers and checks every step:
// the gathered value equals the single device's and the simulated
// devices', and each rank's measured bytes equal the plan's where the
// engine ran the plan's collective (a reduce-scatter, run as an
// all-reduce and a slice, must count the all-reduce's ring).
func runCoverage(t *testing.T, b *builder, checks []check) {
	t.Helper()
	start := time.Now()
	ex, err := pooled(t, Options{}).execute(context.Background(), b, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ex.release()
	var pids []int
	for _, r := range ex.reports {
		pids = append(pids, r.Pid)
	}
	var inRank0 float64
	for _, s := range ex.reports[0].Steps {
		inRank0 += s.Seconds
	}
	r0 := ex.reports[0]
	t.Logf("%d steps (%d checked) on %v: %v in all; rank 0: import torch %.2fs, start torch.distributed %.2fs, steps %.2fs, write %.2fs",
		len(b.job.Steps), len(checks), b.p, time.Since(start).Round(time.Millisecond), r0.ImportSeconds, r0.InitSeconds, inRank0, r0.WriteSeconds)
	keptWorkers(t, pids...)
	ran := map[string]int{}
	for _, c := range checks {
		got, err := assemble(c.shape, b.p, c.nd, ex.shards[c.step])
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		for _, vs := range []struct {
			name string
			v    tensor.Tensor
		}{{"one device", c.want}, {"the simulated devices", c.sim}} {
			if ag, err := tensor.Agree(got, vs.v, tensor.Tolerance); err != nil || !ag.Agrees {
				t.Errorf("%s: torch gives %v, %s %v: %s (%v)", c.what, got.Float64s(), vs.name, vs.v.Float64s(), ag.Words(""), err)
			}
		}
		if c.box == nil {
			continue
		}
		for pos, r := range ex.reports {
			wr := r.Steps[c.step]
			if len(wr.Collectives) != len(c.box.Steps) {
				t.Errorf("%s: rank %d ran %d collectives, the plan has %d", c.what, pos, len(wr.Collectives), len(c.box.Steps))
				continue
			}
			for j, st := range c.box.Steps {
				wc, plan := wr.Collectives[j], st.Ranks[pos]
				ran[string(st.Collective)+" as "+wc.Ran]++
				wantSend, wantRecv := plan.SendBytes, plan.RecvBytes
				if st.Collective == sbp.ReduceScatter && wc.Ran != "none" {
					wantSend, wantRecv = ringBytes(b.p, st, pos)
				}
				if wc.Send != wantSend || wc.Recv != wantRecv {
					t.Errorf("%s: step %d (%s as %s) rank %d measured send %d recv %d, want %d and %d (the plan's %d and %d)",
						c.what, j, st.Collective, wc.Ran, pos, wc.Send, wc.Recv, wantSend, wantRecv, plan.SendBytes, plan.RecvBytes)
				}
			}
		}
	}
	t.Logf("collectives run: %v", ran)
}

// ringBytes is what an all-reduce of the tensor a reduce-scatter starts
// from moves, as the plan counts an all-reduce: (s-p) + (k-1)·p elements
// each way, p the device's BalancedSplit part of s.
func ringBytes(p sbp.Placement, st sbp.Step, pos int) (int64, int64) {
	k := p.Hierarchy()[st.MeshDim]
	ci := p.Coord(pos)[st.MeshDim]
	s := product(st.Ranks[pos].Before)
	part := sbp.BalancedSplit(s, k)[ci]
	n := int64(4 * (s - part + (k-1)*part))
	return n, n
}

// TestEveryOpAndBoxingOn1D runs every op kind under every valid
// signature, and every boxing between S(0), S(1), B, P(sum), P(max) and
// P(min), on 1 to 4 devices (one job, so one start of the workers, per
// placement).
func TestEveryOpAndBoxingOn1D(t *testing.T) {
	needTorch(t)
	var nds []sbp.NdSbp
	for _, s := range boxingSbps {
		nd, _ := sbp.ParseNd(s)
		nds = append(nds, nd)
	}
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprintf("%d devices", n), func(t *testing.T) {
			p, _ := sbp.Devices(n)
			b, checks := coverage(t, p, append(opCases, reshapeCases...), nds)
			defer b.release()
			runCoverage(t, b, checks)
		})
	}
}

// TestEveryBoxingOn2x2Mesh runs every boxing between the nd-SBPs of
// S(0), S(1), B and P(sum) on each mesh dim (P(max) and P(min) beside B
// and S), so the steps of a 2-D mesh run over the mesh's process groups;
// and a few ops on it (exp, neg, a mean and softmax among them) and the reshapes.
func TestEveryBoxingOn2x2Mesh(t *testing.T) {
	needTorch(t)
	p, err := sbp.ParsePlacement("[[0,1],[2,3]]")
	if err != nil {
		t.Fatal(err)
	}
	var nds []sbp.NdSbp
	one := []string{"S(0)", "S(1)", "B", "P(sum)"}
	for _, a := range one {
		for _, c := range one {
			nd, _ := sbp.ParseNd("(" + a + ", " + c + ")")
			nds = append(nds, nd)
		}
	}
	for _, s := range []string{"(P(max), B)", "(S(1), P(max))", "(B, P(min))"} {
		nd, _ := sbp.ParseNd(s)
		nds = append(nds, nd)
	}
	ops := []opCase{opCases[0], opCases[4], opCases[8], opCases[13], opCases[16], opCases[21], opCases[23], opCases[29], opCases[37], opCases[39]}
	b, checks := coverage(t, p, append(ops, reshapeCases...), nds)
	defer b.release()
	runCoverage(t, b, checks)
}

// TestBatchedMatmulOn2x2Mesh runs every signature pair of the batched
// matmul cases of opCases on a 2 × 2 mesh, each mesh dim its own
// signature (a batch split on one, m, n or k on the other).
func TestBatchedMatmulOn2x2Mesh(t *testing.T) {
	needTorch(t)
	p, err := sbp.ParsePlacement("[[0,1],[2,3]]")
	if err != nil {
		t.Fatal(err)
	}
	var batched []opCase
	for _, c := range opCases {
		if c.op.Name() == "matmul" && (len(c.shapes[0]) > 2 || len(c.shapes[1]) > 2) {
			batched = append(batched, c)
		}
	}
	b, checks := coverage(t, p, batched, nil)
	defer b.release()
	runCoverage(t, b, checks)
}
