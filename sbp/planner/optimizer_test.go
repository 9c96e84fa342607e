package planner

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// TestMemoryHandCounts: a parameter's bytes, its gradient's, the
// optimizer's state and the master copy, counted by hand for each
// precision and optimizer: a [16 32] weight held whole on 2 devices.
func TestMemoryHandCounts(t *testing.T) {
	const elems = 16 * 32
	cases := []struct {
		precision, optimizer string
		param, state         int64 // bytes an element
	}{
		{"f32", "", 4, 0},
		{"f32", "optimizer sgd", 4, 0},
		{"f32", "optimizer adam", 4, 8}, // two float32 moments
		{"bf16", "", 2, 0},
		{"bf16", "optimizer sgd", 2, 4},      // the float32 master copy
		{"bf16", "optimizer adam", 2, 4 + 8}, // the master copy and two moments: mixed precision's 12
		{"f16", "optimizer adam", 2, 12},
	}
	for _, c := range cases {
		src := fmt.Sprintf("placement 2; %s; x = const 8,16 S(0) %s; w = input 16,32 B %s; y = matmul x w; s = sum y 1,1; grad s", c.optimizer, c.precision, c.precision)
		src = strings.ReplaceAll(src, "; ;", ";")
		mem := memoryOf(t, src)
		for i, m := range mem {
			want := Memory{Parameters: elems * c.param, Gradients: elems * c.param, Optimizer: elems * c.state}
			if m != want {
				t.Errorf("%s %q: rank %d holds %+v, want %+v", c.precision, c.optimizer, i, m, want)
			}
		}
	}
}

// TestMemoryMatchesThePlaybook: a Llama-style layer (RMSNorm weights,
// the attention's four projections, a gated MLP's three) in bf16 with
// Adam on 4 devices, data parallel and ZeRO-1, 2 and 3, against the
// Ultra-Scale Playbook's formulas for Ψ parameters in mixed precision,
// each part within 1 %:
//
//	DP       params 2Ψ      grads 2Ψ      optimizer 12Ψ
//	ZeRO-1   params 2Ψ      grads 2Ψ      optimizer 12Ψ/N
//	ZeRO-2   params 2Ψ      grads 2Ψ/N    optimizer 12Ψ/N
//	ZeRO-3   params 2Ψ/N    grads 2Ψ/N    optimizer 12Ψ/N
func TestMemoryMatchesThePlaybook(t *testing.T) {
	const h, f, n = 64, 176, 4
	psi := float64(2*h + 4*h*h + 3*h*f)
	cases := []struct {
		name, optimizer, layout string
		params, grads, opt      float64 // the formula's bytes, in Ψ
	}{
		{"data parallel", "optimizer adam", "B", 2, 2, 12},
		{"ZeRO-1", "optimizer adam zero1", "B", 2, 2, 12.0 / n},
		{"ZeRO-2", "optimizer adam zero2", "B", 2, 2.0 / n, 12.0 / n},
		{"ZeRO-3", "optimizer adam", "S(0)", 2.0 / n, 2.0 / n, 12.0 / n},
	}
	for _, c := range cases {
		mem := memoryOf(t, llamaLayer(n, h, f, c.optimizer, c.layout))
		for i, m := range mem {
			for _, part := range []struct {
				what      string
				got, want float64
			}{{"parameters", float64(m.Parameters), c.params * psi}, {"gradients", float64(m.Gradients), c.grads * psi}, {"optimizer", float64(m.Optimizer), c.opt * psi}} {
				if math.Abs(part.got-part.want) > 0.01*part.want {
					t.Errorf("%s: rank %d's %s %.0f bytes, the Playbook's %.0f (Ψ = %.0f)", c.name, i, part.what, part.got, part.want, psi)
				}
			}
		}
	}
}

// llamaLayer is a Llama-style block in the language, bf16, its tokens
// split over n devices and its weights laid out as layout: RMSNorm, one
// head of attention (q, k, v, o), a gated MLP (gate, up, down; ReLU in
// place of SiLU, which the language writes as several ops: the
// parameters are the same).
func llamaLayer(n, h, f int, optimizer, layout string) string {
	return fmt.Sprintf(`placement %[1]d
%[4]s
x = const 32,%[2]d S(0) bf16
norm1 = input %[2]d %[5]s bf16
wq = input %[2]d,%[2]d %[5]s bf16
wk = input %[2]d,%[2]d %[5]s bf16
wv = input %[2]d,%[2]d %[5]s bf16
wo = input %[2]d,%[2]d %[5]s bf16
norm2 = input %[2]d %[5]s bf16
wg = input %[2]d,%[3]d %[5]s bf16
wu = input %[2]d,%[3]d %[5]s bf16
wd = input %[3]d,%[2]d %[5]s bf16
x2 = square x
ms = mean x2 32,1
r = rsqrt ms
xn = mul x r
h1 = mul xn norm1
q = matmul h1 wq
k = matmul h1 wk
v = matmul h1 wv
kt = transpose k
sc = matmul q kt
pr = softmax sc -1
a = matmul pr v
o = matmul a wo
x1 = add x o
y2 = square x1
ms2 = mean y2 32,1
r2 = rsqrt ms2
yn = mul x1 r2
h2 = mul yn norm2
g = matmul h2 wg
u = matmul h2 wu
ga = relu g
m = mul ga u
d = matmul m wd
y = add x1 d
loss = sum y 1,1
grad loss`, n, h, f, optimizer, layout)
}

// memoryOf plans src greedily and returns each rank's Memory.
func memoryOf(t *testing.T, src string) []Memory {
	t.Helper()
	prog, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(prog, Greedy)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := plan.Memory()
	if err != nil {
		t.Fatal(err)
	}
	return mem
}
