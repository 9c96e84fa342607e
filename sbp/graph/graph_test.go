package graph

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// TestBuildDataParallel: data parallelism's step as a graph: the
// forward's statements in order, then the backward seeded with ones,
// each op's gradient rule, and every input's gradient boxed to the
// input's own SBP (w's B: the all-reduce's boxing).
func TestBuildDataParallel(t *testing.T) {
	p, err := program.Parse("placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	var fwd []string
	for _, n := range g.Nodes {
		if n.Pass == Forward {
			fwd = append(fwd, n.Name)
		}
	}
	if want := []string{"x", "w", "y", "s"}; len(fwd) != len(want) || fwd[0] != "x" || fwd[3] != "s" {
		t.Errorf("the forward's nodes are %v, want %v", fwd, want)
	}
	seed := g.Lookup("grad_s")
	if seed == nil || seed.Kind != KindOnes || seed.SeedOf != "s" || seed.Pass != Backward {
		t.Fatalf("the seed: %+v, want grad_s, ones seeding s in the backward", seed)
	}
	for _, in := range []string{"x", "w"} {
		name, ok := g.Grads[in]
		if !ok {
			t.Fatalf("no gradient of %s in %v", in, g.Grads)
		}
		n := g.Lookup(name)
		if n == nil || n.Kind != KindBox || n.GradOf != in || !n.Sbp.Equal(g.Lookup(in).Sbp) || !n.Shape.Equal(g.Lookup(in).Shape) {
			t.Errorf("%s's gradient %s is %+v, want a boxing to %s's own SBP and shape", in, name, n, in)
		}
	}
}

// TestBuildWithoutGrad: no grad, no backward.
func TestBuildWithoutGrad(t *testing.T) {
	p, err := program.Parse("placement 2; x = input 4,6 S(0); y = exp x")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		if n.Pass != Forward {
			t.Errorf("%s is in the %s pass of a program without grad", n.Name, n.Pass)
		}
	}
	if len(g.Nodes) != 2 || len(g.Grads) != 0 {
		t.Errorf("%d nodes and gradients %v, want x and y and none", len(g.Nodes), g.Grads)
	}
}

// TestBuildConstants: a const input (a mask) and what is computed from
// constants alone get no gradient and no backward op; the tensors that
// vary still do. A result of constants alone has nothing to follow.
func TestBuildConstants(t *testing.T) {
	p, err := program.Parse("placement 2; x = input 4,6 S(0); m = const 4,6 B; k = scale m -1; y = mul x k; z = add y m; s = sum z 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Grads["x"]; !ok {
		t.Errorf("x has no gradient: %v", g.Grads)
	}
	for _, c := range []string{"m", "k"} {
		if _, ok := g.Grads[c]; ok {
			t.Errorf("%s, a constant, has a gradient", c)
		}
		for _, n := range g.Nodes {
			if n.Pass == Backward && (n.Name == GradName(c) || strings.HasPrefix(n.Name, GradName(c)+".")) {
				t.Errorf("the backward computes %s", n.Name)
			}
		}
	}
	p, err = program.Parse("placement 2; m = const 4,6 B; s = sum m 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(p); err == nil || !strings.Contains(err.Error(), "s is computed from constants alone") {
		t.Errorf("%v: want the grad refused", err)
	}
}
