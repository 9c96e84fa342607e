package sbp_test

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// The seed's expand on 2 devices: each expands its half of axis 3.
func ExamplePlanOp() {
	p, _ := sbp.ParsePlacement("2")
	in, _ := sbp.ParseNd("S(3)")
	plan, _ := sbp.PlanOp(sbp.Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, p, []sbp.NdSbp{in})
	fmt.Println("out:", plan.OutSbp)
	for _, r := range plan.Ranks {
		fmt.Println(r.Rank, r.InShape, r.InStride, r.ExpandSize, r.OutStride)
	}
	// Output:
	// out: S(4)
	// 0 [4 3 1 1] [3 1 1 1] [2 4 3 4 1] [0 3 1 0 1]
	// 1 [4 3 1 1] [3 1 1 1] [2 4 3 4 1] [0 3 1 0 1]
}

// Rows to columns on 4 devices, unevenly: 25 rows are 7,6,6,6 and 33
// columns 9,8,8,8.
func ExamplePlanBoxing() {
	p, _ := sbp.ParsePlacement("4")
	b, _ := sbp.PlanBoxing(tensor.Shape{25, 33}, tensor.Float32, p, sbp.NdSbp{sbp.S(0)}, sbp.NdSbp{sbp.S(1)})
	fmt.Println(b.Collective)
	for _, r := range b.Ranks {
		fmt.Println(r.Rank, r.Before, "->", r.After, "send", r.SendBytes, "recv", r.RecvBytes)
	}
	// Output:
	// all-to-all
	// 0 [7 33] -> [25 9] send 672 recv 648
	// 1 [6 33] -> [25 8] send 600 recv 608
	// 2 [6 33] -> [25 8] send 600 recv 608
	// 3 [6 33] -> [25 8] send 600 recv 608
}

// A matmul whose inputs split k runs as partial sums; gathering them adds
// the parts.
func ExampleApply() {
	p, _ := sbp.ParsePlacement("[[0,1],[2,3]]")
	a, _ := tensor.Arange(tensor.Int32, tensor.Shape{2, 4})
	b, _ := tensor.Arange(tensor.Int32, tensor.Shape{4, 2})
	ga, _ := sbp.Scatter(tensor.CPU{}, a, p, sbp.NdSbp{sbp.S(1), sbp.B})
	gb, _ := sbp.Scatter(tensor.CPU{}, b, p, sbp.NdSbp{sbp.S(0), sbp.B})
	y, _, err := sbp.Apply(sbp.Matmul(), ga, gb)
	if err != nil {
		fmt.Println(err)
		return
	}
	full, _ := y.Full()
	fmt.Println(y.Sbp(), full.Float64s())
	// Output:
	// (P(sum), B) [28 34 76 98]
}

// A transpose on 2 devices: each transposes its rows, which become its
// columns of the result, so S(0) turns into S(1) without communication.
func ExampleTranspose() {
	p, _ := sbp.Devices(2)
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{3, 2})
	gx, _ := sbp.Scatter(tensor.CPU{}, x, p, sbp.NdSbp{sbp.S(0)})
	y, applied, err := sbp.Apply(sbp.Transpose(), gx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range applied.Plan.Ranks {
		fmt.Println(r.Rank, r.InShape, "->", r.OutShape, r.OutRange)
	}
	full, _ := y.Full()
	fmt.Println(y.Sbp(), full.Shape(), full.Float64s())
	// Output:
	// 0 [2 2] -> [2 2] [[0 2] [0 2]]
	// 1 [1 2] -> [2 1] [[0 2] [2 3]]
	// S(1) [2 3] [0 2 4 1 3 5]
}
