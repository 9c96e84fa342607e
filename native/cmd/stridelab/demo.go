package main

import (
	"fmt"
	"io"

	"github.com/stridelab/stridelab/tensor"
)

// runDemo walks through the worked examples of OneFlow's expand and repeat
// article, computing each one for real on an arange.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", "", stderr)
	if err := fs.parse(args); err != nil {
		return err
	}
	be := tensor.CPU{}
	section := func(title string) { fmt.Fprintf(stdout, "\n== %s ==\n", title) }

	section("expand: stride 0 on broadcast dims")
	for _, c := range []struct{ shape, size string }{{"4,1,3,5", "2,1,4,4,3,5"}, {"4,3,1,2", "2,4,3,4,2"}} {
		if err := runLayout([]string{"expand", "--shape", c.shape, "--size", c.size}, stdout, stderr); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, "\nvalid and invalid sizes for [4 3 1 2]:")
	l, _ := tensor.Contiguous(tensor.Shape{4, 3, 1, 2})
	for _, size := range [][]int{{-1, -1, 5, -1}, {2, 4, 3, 4, 2}, {4, 3, 1}, {8, 3, 1, 2}, {-1, 4, 3, 1, 2}} {
		if v, err := l.Expand(size); err != nil {
			fmt.Fprintf(stdout, "  %-18v %v\n", fmt.Sprint(size), err)
		} else {
			fmt.Fprintf(stdout, "  %-18v ok: shape %v strides %v\n", fmt.Sprint(size), v.Shape(), v.Strides())
		}
	}

	section("repeat = reshape + expand + reshape")
	for _, c := range []struct{ shape, times string }{{"4,1,3,5", "2,1,2,4,1,1"}, {"5", "3"}, {"3,1,5", "5,3,1"}, {"3,1,5", "2,5,3,1"}} {
		if err := runLayout([]string{"repeat", "--shape", c.shape, "--times", c.times}, stdout, stderr); err != nil {
			return err
		}
	}
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3})
	y, err := be.Repeat(x, []int{2, 2})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nrepeat of arange [2 3] by [2 2]:\n%s\n", format(y))

	section("broadcast backward: merged reduce patterns (MXNet/TVM)")
	in := tensor.Shape{2, 3, 4, 1, 5, 6}
	to := tensor.Shape{1, 1, 4, 1, 5, 1}
	reduced, _ := tensor.ReducedAxes(in, to)
	p := tensor.MergeReduceAxes(in, reduced)
	fmt.Fprintf(stdout, "reduce %v to %v: axes %s merge to shape %v pattern %s\n", in, to, tensor.AxisBits(reduced), p.Shape, p.Bits())
	fmt.Fprintln(stdout, "so rank-n reductions need only 2·n kernels: one per (rank, starts reduced or kept)")

	g, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3, 4})
	dx, err := tensor.ExpandBackward(be, g, tensor.Shape{3, 1})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\ngrad of expand [3 1] -> [2 3 4] with grad = arange: sum over the copies\n%s\n", format(dx))
	return nil
}
