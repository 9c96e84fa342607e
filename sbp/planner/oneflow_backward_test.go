package planner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestGreedyDataParallelIsOneAllReducePerWeight: under greedy (OneFlow's
// rule, through OneFlow's own gradient ops) data parallelism sends one
// all-reduce of each weight's gradient and nothing else, as OneFlow's
// documentation says: sum's gradient, broadcast_like(dy, like), splits as
// its like does, so the activations' gradients stay split by rows and
// each weight's gradient comes out partial. On 1-D placements of 2 to 5
// devices and a 2×2 mesh, for a plain sum loss, a sum of squares, a bias
// added, and two layers with tanh between.
func TestGreedyDataParallelIsOneAllReducePerWeight(t *testing.T) {
	losses := []struct {
		name, body string
		weights    []string
	}{
		{"sum", "y = matmul x w; s = sum y 1,1", []string{"w"}},
		{"sum of squares", "y = matmul x w; z = mul y y; s = sum z 1,1", []string{"w"}},
		{"bias", "y = matmul x w; b = input 1,16 BB; z = add y b; s = sum z 1,1", []string{"w", "b"}},
		{"two layers", "y = matmul x w; h = tanh y; w2 = input 16,8 BB; o = matmul h w2; s = sum o 1,1", []string{"w", "w2"}},
	}
	placements := []struct{ placement, split, whole string }{
		{"2", "S(0)", "B"}, {"3", "S(0)", "B"}, {"4", "S(0)", "B"}, {"5", "S(0)", "B"},
		{"[[0,1],[2,3]]", "(S(0), S(0))", "(B, B)"},
	}
	for _, l := range losses {
		for _, p := range placements {
			body := strings.ReplaceAll(l.body, "BB", p.whole)
			src := fmt.Sprintf("placement %s; x = input 60,32 %s; w = input 32,16 %s; %s; grad s", p.placement, p.split, p.whole, body)
			plan := planned(t, src, Greedy)
			var sent []string
			for _, st := range plan.Steps {
				if st.Kind != StepBoxing || st.SendBytes == 0 {
					continue
				}
				for _, c := range st.Collectives {
					if c != "all-reduce" {
						t.Errorf("%s: %s sends %v, want only all-reduces", src, st.Name, st.Collectives)
					}
				}
				sent = append(sent, st.Name)
			}
			var want []string
			for _, w := range l.weights {
				want = append(want, graph.GradName(w))
			}
			slices.Sort(sent)
			slices.Sort(want)
			if !slices.Equal(sent, want) {
				t.Errorf("%s (%s): greedy's boxings that send are %v, want one all-reduce of each weight's gradient %v", src, l.name, sent, want)
			}
		}
	}
}

// TestGreedyMegatronMLPIsOneAllReduceEachWay: Megatron's MLP (w1 by
// columns, w2 by rows, tanh between) under greedy sends one all-reduce
// in the forward (y, the g operator) and one in the backward (x's
// gradient, the f operator), and nothing else.
func TestGreedyMegatronMLPIsOneAllReduceEachWay(t *testing.T) {
	for _, n := range []int{2, 4} {
		src := fmt.Sprintf("placement %d; x = input 16,32 B; w1 = input 32,64 S(1); h = matmul x w1; a = tanh h; w2 = input 64,32 S(0); y = matmul a w2; z = box y B; s = sum z 1,1; grad s", n)
		plan := planned(t, src, Greedy)
		var got []string
		for _, st := range plan.Steps {
			if st.Kind == StepBoxing && st.SendBytes > 0 {
				got = append(got, string(st.Pass)+" "+st.Name+" "+strings.Join(st.Collectives, "+"))
			}
		}
		if want := []string{"forward z all-reduce", "backward grad_x all-reduce"}; !slices.Equal(got, want) {
			t.Errorf("%s: greedy sends %v, want %v", src, got, want)
		}
	}
}

// oneflowGradient is the gradient ops OneFlow's gradient function for the
// forward op op (its inputs of shapes in, its output of shape out) writes
// for its argument j, in order: transcribed from
// oneflow/core/autograd/gradient_funcs at 25c8978c (docs/planner-sources.md
// §2b), separately from sbp's rules. first is whether this is the first
// argument of the op to get its gradient: max's and min's masks are made
// once for both. Where stridelab writes its own ops for a OneFlow op it
// has not (div's divisor: broadcast_div_grad; the elementwise max's
// elementwise_max_grad, with torch's even split at ties), the list is
// those ops.
func oneflowGradient(op sbp.Op, in []tensor.Shape, out tensor.Shape, j int, first bool) []string {
	p := sbp.Params(op)
	// summed is BroadcastReduceSumLike: reduce_sum_like where the
	// argument broadcast against the output.
	summed := func(ops ...string) []string {
		if !in[j].Equal(out) {
			return append(ops, "reduce_sum_like")
		}
		return ops
	}
	switch name := op.Name(); name {
	case "reduce": // reduce_ops.cpp
		if p.Reduce == tensor.Sum {
			return []string{"broadcast_like"} // ReduceSum: BroadcastLike(dy, input)
		}
		// ReduceMaxOrMin: BroadcastLike(output, input), BroadcastEqual,
		// ReduceSum of the mask, Div, BroadcastLike, Mul
		return []string{"broadcast_like", "eq", "reduce", "div", "broadcast_like", "mul"}
	case "mean": // ReduceMeanFunctor is reduce_sum then scalar_mul
		return []string{"scale", "broadcast_like"}
	case "expand": // expand.cpp: ReduceSum over the broadcast dims
		return []string{"reduce"}
	case "repeat": // not a OneFlow op: stridelab's one op for reshape, expand's reduce_sum, reshape
		return []string{"repeat_grad"}
	case "add": // broadcast_binary_ops.cpp: BroadcastAdd
		return summed()
	case "sub": // BroadcastSub: ScalarMul(dy, -1) for y
		if j == 1 {
			return summed("scale")
		}
		return summed()
	case "mul": // BroadcastMul: Mul(dy, the other)
		return summed("mul")
	case "div":
		if j == 0 { // BroadcastDiv: Div(dy, y)
			return summed("div")
		}
		// DivGrad(dy, z, y), written as −dy·z/y summed like y
		ops := []string{"mul", "div"}
		if !in[1].Equal(out) {
			ops = append(ops, "reduce_sum_like")
		}
		return append(ops, "scale")
	case "max", "min": // the picked operand's share
		var ops []string
		if first {
			ops = []string{"eq", "eq", "add"}
		}
		return summed(append(ops, "mul", "div")...)
	case "matmul": // matmul.cpp: Matmul, BroadcastMatmul
		a, b := in[0], in[1]
		if j == 1 && len(b) == 2 && len(a) > 2 {
			return []string{"broadcast_matmul_grad_b"}
		}
		// MatMul(dy, b, false, true) or MatMul(a, dy, true, false), then
		// ReduceSumLike where the operand's batch dims broadcast
		grad := out.Clone()
		if j == 0 {
			grad[len(grad)-1] = a[len(a)-1]
		} else {
			grad[len(grad)-2] = b[len(b)-2]
		}
		if grad.Equal(in[j]) {
			return []string{"matmul_t"}
		}
		return []string{"matmul_t", "reduce_sum_like"}
	case "neg": // math_unary_op.cpp: Negative(dy)
		return []string{"neg"}
	case "exp", "log", "sqrt", "rsqrt", "tanh", "relu": // the *_grad ops
		return []string{name + "_grad"}
	case "softmax": // softmax.cpp: SoftmaxGrad(dy, y)
		return []string{"softmax_grad"}
	case "scale": // scalar_mul.cpp: ScalarMul(dy, c)
		return []string{"scale"}
	case "transpose", "permute", "reshape": // transpose.cpp, reshape.cpp
		return []string{name}
	}
	return []string{"no gradient for " + op.Name()}
}

// TestBackwardIsOneFlowsGradients: on 400 random programs with a
// backward, the backward's ops (the adds that gather a tensor's
// gradients aside) are, in order, what OneFlow's gradient functions
// write for each forward op, in reverse program order (the
// transcription above).
func TestBackwardIsOneFlowsGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	n := 400
	if testing.Short() || runtime.GOOS == "js" {
		n = 60
	}
	checked := 0
	for tries := 0; checked < n && tries < 20*n; tries++ {
		src := randomProgram(r)
		p, err := program.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if p.Grad == nil {
			continue
		}
		checked++
		g, err := graph.Build(p)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		var want, got []string
		fwd := 0
		for fwd < len(g.Nodes) && g.Nodes[fwd].Pass == graph.Forward {
			fwd++
		}
		// reaches: the names the result depends on (the backward's walk).
		reaches := map[string]bool{p.Grad.Name: true}
		for i := fwd - 1; i >= 0; i-- {
			if n := g.Nodes[i]; reaches[n.Name] {
				for _, a := range n.Args {
					reaches[a] = true
				}
			}
		}
		shape := func(name string, before int) tensor.Shape {
			for i := before - 1; i >= 0; i-- {
				if g.Nodes[i].Name == name {
					return g.Nodes[i].Shape
				}
			}
			return nil
		}
		for i := fwd - 1; i >= 0; i-- {
			n := g.Nodes[i]
			if n.Kind != graph.KindOp || !reaches[n.Name] {
				continue
			}
			in := make([]tensor.Shape, len(n.Args))
			for j, a := range n.Args {
				in[j] = shape(a, i)
			}
			for j := range n.Args {
				want = append(want, oneflowGradient(n.Op, in, n.Shape, j, j == 0)...)
			}
		}
		for _, n := range g.Nodes[fwd:] {
			if n.Kind == graph.KindOp && !strings.Contains(n.Why, "its gradients add up") {
				got = append(got, n.Op.Name())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("the backward runs\n  %v\nOneFlow's gradient functions write\n  %v\n%s", got, want, src)
		}
	}
	if checked < n {
		t.Errorf("only %d random programs had a backward", checked)
	}
}
