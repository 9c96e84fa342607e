package engine_test

import (
	"context"
	"fmt"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// Data parallelism on 4 simulated devices, planned exactly: the weight's
// gradient is all-reduced, and every device sends and receives what the
// plan counts.
func ExampleSim() {
	p, _ := program.Parse("placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s")
	plan, _ := planner.NewPlan(p, planner.Exact)
	res, _ := engine.Sim{}.Run(context.Background(), plan, nil)
	defer res.Values.Release()
	for _, r := range res.Ranks {
		for _, s := range r.Steps {
			for _, c := range s.Collectives {
				fmt.Println("rank", r.Rank, s.Name, c.Collective, "sent", c.SendBytes, "received", c.RecvBytes)
			}
		}
	}
	want, _ := plan.Reference(nil)
	defer want.Release()
	agree := 0
	for _, a := range engine.Compare(res.Values, want) {
		if a.Agrees {
			agree++
		}
	}
	fmt.Println(agree, "of", len(res.Values), "values equal one device's")
	// Output:
	// rank 0 grad_w all-reduce sent 192 received 192
	// rank 1 grad_w all-reduce sent 192 received 192
	// rank 2 grad_w all-reduce sent 192 received 192
	// rank 3 grad_w all-reduce sent 192 received 192
	// 8 of 8 values equal one device's
}
