package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// benchPrograms are the programs docs/performance.md times: every program
// of the gallery (docs/gallery/gallery.sh), Megatron's MLP on 4 devices,
// a two-layer MLP with biases on a 2×2 mesh (forward, and with its
// backward) and a chain of 12 such layers with residuals on a 2×4 mesh
// (forward, and with its backward).
var benchPrograms = []struct{ name, src string }{
	{"gallery/data-parallel", "placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s"},
	{"gallery/model-parallel", "placement 4; x = input 64,32 B; w = input 32,16 S(1); y = matmul x w; s = sum y 1,1; grad s"},
	{"gallery/matmul-s0-s0", "placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w"},
	{"gallery/mesh-2d", "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"},
	{"gallery/greedy-exact", "placement 4; x = input 64,32 S(0); w = input 32,16 S(0); y = matmul x w; s = sum y 1,1; grad s"},
	{"gallery/seed", "placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; z = mul y y; s = sum z 1,1; grad s"},
	{"megatron-mlp-4", "placement 4; x = input 8,16 B; w1 = input 16,32 S(1); h = matmul x w1; zero = input 1 B; r = max h zero; w2 = input 32,16 S(0); y = matmul r w2; s = sum y 1,1; grad s"},
	{"mlp-bias-2x2", mlp2x2},
	{"mlp-bias-2x2-grad", mlp2x2 + "; s = sum yb 1,1; grad s"},
	{"chain12-2x4", chain(12, "[[0,1,2,3],[4,5,6,7]]", "(S(0), B)", "(B, S(1))", "(B, B)")},
	{"chain12-2x4-grad", chain(12, "[[0,1,2,3],[4,5,6,7]]", "(S(0), B)", "(B, S(1))", "(B, B)") + "; grad s"},
}

const mlp2x2 = "placement [[0,1],[2,3]]; x = input 16,32 (S(0), B); w1 = input 32,64 (B, S(1)); b1 = input 64 (B, S(0)); h = matmul x w1; hb = add h b1; zero = input 1 (B, B); r = max hb zero; w2 = input 64,32 (B, S(0)); b2 = input 32 (B, B); y = matmul r w2; yb = add y b2"

// chain writes layers of matmul, add bias, max 0 and a residual add,
// ending in s = sum of the last: n layers on placement mesh.
func chain(n int, mesh, x, w, b string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "placement %s; a0 = input 16,32 %s; zero = input 1 %s", mesh, x, b)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, "; w%d = input 32,32 %s; b%d = input 32 %s; m%d = matmul a%d w%d; h%d = add m%d b%d; r%d = max h%d zero; a%d = add r%d a%d",
			i, w, i, b, i, i-1, i, i, i, i, i, i, i, i, i-1)
	}
	fmt.Fprintf(&s, "; s = sum a%d 1,1", n)
	return s.String()
}

// BenchmarkPlan plans each program with each strategy: NewPlan, the
// greedy one with its exact comparison where that runs.
func BenchmarkPlan(b *testing.B) {
	for _, c := range benchPrograms {
		p, err := program.Parse(c.src)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []Strategy{Greedy, Exact} {
			b.Run(c.name+"/"+string(s), func(b *testing.B) {
				if _, err := NewPlan(p, s); err != nil {
					b.Skip(err)
				}
				for b.Loop() {
					NewPlan(p, s)
				}
			})
		}
	}
}

// BenchmarkGreedyAlone plans each program greedily without the exact
// comparison: what a scene rebuilt on every keystroke pays, with the
// boxings of the keystroke before remembered (boxMemo), and cold.
func BenchmarkGreedyAlone(b *testing.B) {
	for _, c := range benchPrograms {
		p, err := program.Parse(c.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewPlanWith(p, Greedy, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				forgetBoxings()
				if _, err := NewPlanWith(p, Greedy, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
