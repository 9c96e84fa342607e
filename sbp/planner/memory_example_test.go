package planner_test

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// What each device holds at the peak of data parallelism's step, and a
// device too small for it.
func ExamplePlan_Capacity() {
	p, err := program.Parse("placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s")
	if err != nil {
		panic(err)
	}
	plan, err := planner.NewPlan(p, planner.Greedy)
	if err != nil {
		panic(err)
	}
	peak, step := plan.Peak()
	fmt.Println(peak, "bytes at step", step+1)
	fmt.Println(plan.Capacity(16<<10, "16 KiB device"))
	// Output:
	// [20480 20480 20480 20480] bytes at step 10
	// program: line 1, column 86: grad s: rank 0 holds 20.0 KiB at step 10 (grad_x.y as B 8.00 KiB, grad_y as B 4.00 KiB, x as S(0) 2.00 KiB and 3 more); each 16 KiB device has 16.0 KiB
}
