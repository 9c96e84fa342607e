package sbp_test

import (
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/sbpcheck"
	"github.com/stridelab/stridelab/tensor"
)

// TestBoxMovedIsThePlan: what every simulated collective moves between
// the devices, counted as it moves, is what PlanBoxing counts, device by
// device (even and uneven splits, empty and scalar tensors, 2-D meshes),
// and the boxed tensor gathers to the one scattered.
func TestBoxMovedIsThePlan(t *testing.T) {
	for _, c := range []struct {
		shape     tensor.Shape
		placement string
		from, to  string
		moves     bool // some device sends a byte
	}{
		{tensor.Shape{13, 17}, "4", "S(1)", "B", true},
		{tensor.Shape{13, 17}, "4", "P", "B", true},
		{tensor.Shape{13, 17}, "3", "P(max)", "B", true},
		{tensor.Shape{7}, "4", "P(min)", "B", true}, // 7 elements in parts 2,2,2,1
		{tensor.Shape{2}, "4", "P", "B", true},      // parts 1,1,0,0
		{tensor.Shape{}, "3", "P", "B", true},
		{tensor.Shape{13, 17}, "4", "P", "S(0)", true},
		{tensor.Shape{25, 33}, "4", "S(0)", "S(1)", true},
		{tensor.Shape{12, 18, 24}, "4", "S(2)", "S(0)", true},
		{tensor.Shape{13, 17}, "2", "P(sum)", "P(max)", true},
		{tensor.Shape{8, 0, 4}, "4", "P", "B", false},
		{tensor.Shape{8, 0, 4}, "4", "S(0)", "S(1)", false},
		{tensor.Shape{13, 17}, "3", "B", "S(1)", false},
		{tensor.Shape{13, 17}, "3", "B", "P", false},
		{tensor.Shape{13, 17}, "3", "S(1)", "P", false},
		{tensor.Shape{13, 17}, "[[0,1],[2,3]]", "(S(0), S(1))", "(B, B)", true},
		{tensor.Shape{13, 17}, "[[0,1],[2,3]]", "(S(0), S(1))", "(S(1), S(0))", true},
		{tensor.Shape{13, 17}, "[[0,1,2],[3,4,5]]", "(P, S(1))", "(S(0), P)", true},
		{tensor.Shape{13, 17}, "[[0,1,2],[3,4,5]]", "(P, P)", "(B, S(0))", true},
	} {
		name := fmt.Sprintf("%v %s -> %s on %s", c.shape, c.from, c.to, c.placement)
		p, err := sbp.ParsePlacement(c.placement)
		if err != nil {
			t.Fatal(err)
		}
		from, _ := sbp.ParseNd(c.from)
		to, _ := sbp.ParseNd(c.to)
		x, _ := tensor.Arange(tensor.Float32, c.shape)
		g, err := sbp.Scatter(tensor.CPU{}, x, p, from)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		boxed, plan, moved, err := g.BoxMoved(to)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sbpcheck.Moves(plan, moved); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var sent int64
		for _, m := range moved {
			for _, b := range m.SendBytes {
				sent += b
			}
		}
		if (sent > 0) != c.moves || sent != plan.SendBytes {
			t.Errorf("%s: the devices sent %d B in all, the plan %d", name, sent, plan.SendBytes)
		}
		full, err := boxed.Full()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(full.Float64s()) != fmt.Sprint(x.Float64s()) {
			t.Errorf("%s: gathered %v, want %v", name, full.Float64s(), x.Float64s())
		}
	}
}
