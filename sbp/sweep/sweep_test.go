package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
)

// TestRunGrowsTheCluster: a data-parallel MLP swept over 1 to 16 GPUs
// of h100-nodes: one node to 8, two at 16 (where the gradients'
// all-reduce crosses InfiniBand and takes longer than on one node), each
// rank's peak falling with its shard of the data, throughput per device
// from the token ids.
func TestRunGrowsTheCluster(t *testing.T) {
	src := "placement 1; ids = input 64 S(0) i32; wte = input 100,256 B bf16; w = input 256,256 B bf16; e = gather wte ids; y = matmul e w; s = sum y 1,1; grad s"
	res, err := Run(context.Background(), src, Options{Devices: []int{1, 8, 16}, Mesh: 1,
		Cluster: func(n int) (cluster.Cluster, error) { return cluster.ForDevices("h100-nodes", n) }})
	if err != nil {
		t.Fatal(err)
	}
	one, eight, sixteen := res.Rows[0], res.Rows[1], res.Rows[2]
	if one.Cluster != "h100-nodes:1" || sixteen.Cluster != "h100-nodes:2" || one.CommTimeS != 0 || sixteen.CommTimeS <= eight.CommTimeS {
		t.Errorf("communication: 1 GPU %g s on %s, 8 %g s, 16 %g s on %s", one.CommTimeS, one.Cluster, eight.CommTimeS, sixteen.CommTimeS, sixteen.Cluster)
	}
	if one.TokensPerSPerDevice <= 0 || !near(one.TokensPerSPerDevice, 64/one.TimeS) || eight.PeakHeldBytes >= one.PeakHeldBytes {
		t.Errorf("rows %+v", res.Rows)
	}
	if res.Strategy != "exact" || res.Mesh != "1d" || one.Layouts["wte"] != "B" {
		t.Errorf("result %+v", res)
	}
}

// TestPlacements: a 2-D sweep lays n devices out as rows of a node's.
func TestPlacements(t *testing.T) {
	c, _ := cluster.ForDevices("h100-nodes", 32)
	for n, want := range map[int]string{4: "[[0, 1, 2, 3]]", 16: "[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]"} {
		p, err := placement(n, 2, c)
		if err != nil || p.Nested() != want {
			t.Errorf("placement(%d, 2-D) = %v, %v; want %s", n, p.Nested(), err, want)
		}
	}
	if _, err := placement(12, 2, c); err == nil || !strings.Contains(err.Error(), "12 devices do not make whole rows of 8") {
		t.Errorf("12 devices in rows of 8: %v", err)
	}
}

func near(a, b float64) bool { return a-b < 1e-9*b && b-a < 1e-9*b }

// TestRunWithAuto: weights written auto, the layout each count gets and
// its name: an MLP whose weights are large beside its tokens is tensor
// parallel on 8 GPUs, as Megatron lays it out (the first weight split by
// columns, the second by rows), and data parallel where the tokens are
// many and the weights small.
func TestRunWithAuto(t *testing.T) {
	node := func(n int) (cluster.Cluster, error) { return cluster.ForDevices("h100-nodes", n) }
	wide := "placement 8; optimizer adam; x = const 8192,4096 S(0) bf16; w1 = input 4096,16384 auto bf16; w2 = input 16384,4096 auto bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s"
	res, err := Run(context.Background(), wide, Options{Devices: []int{8}, Mesh: 1, Cluster: node})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Scheme != "tensor parallel" || r.Layouts["w1"] != "S(1)" || r.Layouts["w2"] != "S(0)" {
		t.Errorf("the wide MLP on 8: %s, %v", r.Scheme, r.Layouts)
	}
	tall := strings.NewReplacer("8192,4096", "65536,2048", "4096,16384", "2048,2048", "16384,4096", "2048,2048").Replace(wide)
	if res, err = Run(context.Background(), tall, Options{Devices: []int{8}, Mesh: 1, Cluster: node}); err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Scheme != "data parallel" {
		t.Errorf("the tall MLP on 8: %s, %v", r.Scheme, r.Layouts)
	}
}
