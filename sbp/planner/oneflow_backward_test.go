package planner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/graph"
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
