package planner

import (
	"errors"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// handLayouts are the layouts a person would write for a model of two
// weights, by name: data parallel, ZeRO-3 (the weights split by rows,
// gathered for use), Megatron tensor parallel (the first column-, the
// second row-parallel), and on a 2-D mesh data by tensor parallel.
var handLayouts = map[string]map[string]string{
	"data parallel": {"W1": "B", "B1": "B", "W2": "B", "B2": "B"},
	"ZeRO-3":        {"W1": "S(0)", "B1": "S(0)", "W2": "S(0)", "B2": "S(0)"},
	"Megatron":      {"W1": "S(0)", "B1": "S(0)", "W2": "S(1)", "B2": "B"},
}

var meshLayouts = map[string]map[string]string{
	"data parallel":   {"X": "(S(0), B)", "W1": "(B, B)", "B1": "(B, B)", "W2": "(B, B)", "B2": "(B, B)"},
	"data × tensor":   {"X": "(S(0), B)", "W1": "(B, S(0))", "B1": "(B, S(0))", "W2": "(B, S(1))", "B2": "(B, B)"},
	"ZeRO-3 × tensor": {"X": "(S(0), B)", "W1": "(S(1), S(0))", "B1": "(B, S(0))", "W2": "(S(0), S(1))", "B2": "(B, B)"},
}

// importedMLP is the gallery's imported MLP (an nn.Module traced by
// stridelab import) at a size where layouts matter, bf16 with Adam, its
// inputs' SBPs left as the words W1, B1, W2, B2 and X to fill in.
func importedMLP(t *testing.T, placement string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/gallery/imported/model.st")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, r := range []struct{ from, to string }{
		{"\nplacement 4\n", "\nplacement " + placement + "\noptimizer adam\n"},
		{"fc1_weight = input 128,32 S(0)", "fc1_weight = input 8192,2048 W1 bf16"},
		{"fc1_bias = input 128 S(0)", "fc1_bias = input 8192 B1 bf16"},
		{"fc2_weight = input 32,128 S(1)", "fc2_weight = input 2048,8192 W2 bf16"},
		{"fc2_bias = input 32 B", "fc2_bias = input 2048 B2 bf16"},
		{"x = input 64,32 B", "x = const 4096,2048 X bf16"},
		{"target = input 64,32 B", "target = const 4096,2048 X bf16"},
	} {
		if !strings.Contains(src, r.from) {
			t.Fatalf("the gallery's model.st has no %q", r.from)
		}
		src = strings.Replace(src, r.from, r.to, 1)
	}
	return src
}

// fill writes layouts into src's SBP words (X: the data's, S(0) on a
// 1-D mesh unless given).
func fill(src string, layouts map[string]string) string {
	words := regexp.MustCompile(`\b(W1|B1|W2|B2|X)\b`)
	return words.ReplaceAllStringFunc(src, func(w string) string {
		if l := layouts[w]; l != "" {
			return l
		}
		return "S(0)"
	})
}

// planTime plans src exactly on c and returns the plan, failing on an
// error.
func planOn(t *testing.T, src string, c cluster.Cluster) *Plan {
	t.Helper()
	prog, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlanWith(prog, Exact, Options{Cluster: &c})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func peakOf(p *Plan) int64 { return p.MostHeld() }

// TestAutoBeatsTheHandLayouts: with its weights written auto, exact's
// step time is at most the best hand layout's (data parallel, ZeRO-3,
// Megatron; on a 2×4 mesh data by tensor parallel), planned exactly on
// the same cluster, on the imported MLP and on a Llama-style layer, and
// every rank's peak fits.
func TestAutoBeatsTheHandLayouts(t *testing.T) {
	node, _ := cluster.Preset("h100-node")
	for _, c := range []struct {
		name, placement string
		hands           map[string]map[string]string
	}{{"imported MLP on 8", "8", handLayouts}, {"imported MLP on 2×4", "[[0,1,2,3],[4,5,6,7]]", meshLayouts}} {
		src := importedMLP(t, c.placement)
		auto := planOn(t, fill(src, map[string]string{"W1": "auto", "B1": "auto", "W2": "auto", "B2": "auto", "X": c.hands["data parallel"]["X"]}), node)
		best, bestName := 0.0, ""
		for name, lay := range c.hands {
			if p := planOn(t, fill(src, lay), node); best == 0 || p.Timing.TimeS < best {
				best, bestName = p.Timing.TimeS, name
			}
		}
		if auto.Timing.TimeS > best*(1+1e-9) || float64(peakOf(auto)) > node.Device.MemCapacity {
			t.Errorf("%s: auto takes %g s (peak %d), the best hand layout (%s) %g s", c.name, auto.Timing.TimeS, peakOf(auto), bestName, best)
		}
	}
	layer := llamaLayer(8, 256, 704, "optimizer adam", "auto")
	auto := planOn(t, layer, node)
	for _, hand := range []string{"B", "S(0)"} {
		if p := planOn(t, llamaLayer(8, 256, 704, "optimizer adam", hand), node); auto.Timing.TimeS > p.Timing.TimeS*(1+1e-9) {
			t.Errorf("the Llama layer: auto %g s, every weight %s %g s", auto.Timing.TimeS, hand, p.Timing.TimeS)
		}
	}
}

// TestAutoFitsTheMemory: on devices too small for data parallelism
// (its peak is over their memory) auto finds a layout that fits, as
// ZeRO-3 does; on devices too small for any layout it says so in one
// line, naming the smallest peak it found.
func TestAutoFitsTheMemory(t *testing.T) {
	node, _ := cluster.Preset("h100-node")
	src := "placement 8; optimizer adam; x = const 65536,2048 S(0) bf16; w1 = input 2048,2048 W bf16; w2 = input 2048,2048 W bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s"
	dp := planOn(t, strings.ReplaceAll(src, " W ", " B "), node)
	zero3 := planOn(t, strings.ReplaceAll(src, " W ", " S(0) "), node)
	if peakOf(zero3) >= peakOf(dp) {
		t.Fatalf("ZeRO-3 holds %d, data parallel %d: the test needs ZeRO-3 smaller", peakOf(zero3), peakOf(dp))
	}
	small := node
	small.Name, small.Device.MemCapacity = "small", float64(peakOf(dp)-1)
	auto := planOn(t, strings.ReplaceAll(src, " W ", " auto "), small)
	if float64(peakOf(auto)) > small.Device.MemCapacity || auto.Timing.TimeS > zero3.Timing.TimeS*(1+1e-9) {
		t.Errorf("auto on devices of %g bytes: peak %d, %g s; ZeRO-3 %d, %g s", small.Device.MemCapacity, peakOf(auto), auto.Timing.TimeS, peakOf(zero3), zero3.Timing.TimeS)
	}
	tiny := node
	tiny.Name, tiny.Device.MemCapacity = "tiny", 1e6
	prog, _ := program.Parse(strings.ReplaceAll(src, " W ", " auto "))
	_, err := NewPlanWith(prog, Exact, Options{Cluster: &tiny})
	if err == nil || !errors.Is(err, ErrCapacity) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "grad s: no layout of the auto inputs fits (the smallest peak found): rank ") || !strings.HasSuffix(err.Error(), "each tiny device has 977 KiB") {
		t.Errorf("auto on devices of 1 MB: %v", err)
	}
	// greedy takes OneFlow's default for auto: B.
	g, err := NewPlanWith(prog, Greedy, Options{Cluster: &node})
	if err != nil || g.Steps[1].Sbp.String() != "B" || g.Steps[2].Sbp.String() != "B" {
		t.Errorf("greedy with auto: %v, %v %v", err, g.Steps[1].Sbp, g.Steps[2].Sbp)
	}
}

// TestAutoEqualsEnumeration: exact with two weights written auto takes
// the least time of exact on every pair of their layouts written by
// hand (autoLayouts: B and every split, per mesh dim), to the
// picosecond, on 4 devices and on a 2×2 mesh, on a cluster whose memory
// every layout fits.
func TestAutoEqualsEnumeration(t *testing.T) {
	node, _ := cluster.Preset("h100-node")
	placements := []string{"4", "[[0,1],[2,3]]"}
	if runtime.GOOS == "js" {
		placements = placements[:1] // the mesh's 81 plans take a while in the browser's runtime
	}
	for _, placement := range placements {
		p, _ := sbp.ParsePlacement(placement)
		data := "S(0)"
		if p.MeshRank() == 2 {
			data = "(S(0), B)"
		}
		src := "placement " + placement + "; optimizer adam; x = const 512,256 " + data + " bf16; w1 = input 256,1024 W1 bf16; w2 = input 1024,256 W2 bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s"
		auto := planOn(t, strings.NewReplacer("W1", "auto", "W2", "auto").Replace(src), node)
		best := -1.0
		lays := autoLayouts(tensor.Shape{256, 1024}, p)
		for _, l1 := range lays {
			for _, l2 := range lays {
				pl := planOn(t, strings.NewReplacer("W1", l1.String(), "W2", l2.String()).Replace(src), node)
				if best < 0 || pl.Timing.TimeS < best {
					best = pl.Timing.TimeS
				}
			}
		}
		if ps(auto.Timing.TimeS) != ps(best) {
			t.Errorf("on %s: auto takes %g s, the best of %d pairs of layouts %g s", placement, auto.Timing.TimeS, len(lays)*len(lays), best)
		}
	}
}
