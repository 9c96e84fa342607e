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
	fmt.Println(plan.Capacity(8<<10, "8 KiB device"))
	// Output:
	// [10240 10240 10240 10240] bytes at step 9
	// program: line 1, column 36: w = input 32,16 B: rank 0 holds 10.0 KiB at step 9 (x as S(0) 2.00 KiB, w as B 2.00 KiB, grad_x.y as S(0) 2.00 KiB and 2 more); each 8 KiB device has 8.00 KiB
}
