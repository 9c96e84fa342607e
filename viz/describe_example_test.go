package viz_test

import (
	"fmt"

	"github.com/stridelab/stridelab/viz"
)

// A live region's words for the focused thing: what an expand's output
// cell reads, where a cell of a boxed tensor lives before the boxing, and
// what a program's step does.
func ExampleScene_Describe() {
	for _, c := range []struct{ scene, focus string }{{"expand", "out[2,1,2]"}, {"boxing", "[13,5]"}, {"program", "step 3"}} {
		spec, _ := viz.Example(c.scene)
		s, err := viz.Build(spec)
		if err != nil {
			panic(err)
		}
		f, _ := viz.ParseFocus(c.focus)
		words, err := s.Describe(0, f)
		if err != nil {
			panic(err)
		}
		fmt.Println(words)
	}
	// Output:
	// out[2,1,2] reads x[8]
	// [13,5] is on rank 2 (coord [2]), shard [6 33] at rows 13–18
	// step 3: y = matmul x w under S(0) x B -> S(0)
}
