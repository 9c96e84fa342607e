package cluster_test

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/tensor"
)

// The same all-reduce of a 64 MiB gradient on two H100 nodes: along mesh
// dim 0 it crosses InfiniBand, along dim 1 it stays on NVLink.
func ExampleTimeBoxing() {
	c, _ := cluster.Preset("two-h100-nodes")
	p, _ := sbp.ParsePlacement("[[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15]]")
	for _, from := range []sbp.NdSbp{{sbp.PSum, sbp.B}, {sbp.B, sbp.PSum}} {
		b, _ := sbp.PlanBoxing(tensor.Shape{4096, 4096}, tensor.Float32, p, from, sbp.NdSbp{sbp.B, sbp.B})
		t, _ := cluster.TimeBoxing(c, b)
		s := t.Steps[0]
		fmt.Printf("%v -> (B, B): %s on mesh dim %d, n=%d: %.3g ms\n", from, s.Collective, s.MeshDim, s.Devices, t.TimeS*1e3)
	}
	// Output:
	// (P(sum), B) -> (B, B): all-reduce on mesh dim 0, n=2: 1.36 ms
	// (B, P(sum)) -> (B, B): all-reduce on mesh dim 1, n=8: 0.303 ms
}

// A matmul's roofline on one H100: a square 4096 one is compute bound,
// a thin one memory bound.
func ExampleDevice_Roofline() {
	c, _ := cluster.Preset("h100-node")
	for _, s := range [][]tensor.Shape{{{4096, 4096}, {4096, 4096}}, {{8, 4096}, {4096, 4096}}} {
		w, _ := cluster.OpWork(sbp.Matmul(), s, tensor.Shape{s[0][0], s[1][1]}, tensor.F32)
		r := c.Device.Roofline(w, tensor.F32)
		fmt.Printf("%v x %v: %.3g FLOPs, %.3g bytes: %.3g µs, %s bound\n", s[0], s[1], w.FLOPs, w.Bytes, r.TimeS*1e6, r.Bound)
	}
	// Output:
	// [4096 4096] x [4096 4096]: 1.37e+11 FLOPs, 2.01e+08 bytes: 2.05e+03 µs, compute bound
	// [8 4096] x [4096 4096]: 2.68e+08 FLOPs, 6.74e+07 bytes: 20.1 µs, memory bound
}
