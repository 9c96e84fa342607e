package sbp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

func TestBalancedSplit(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want string
	}{
		{20, 6, "[4 4 3 3 3 3]"}, {2, 3, "[1 1 0]"}, {12, 4, "[3 3 3 3]"}, {25, 4, "[7 6 6 6]"},
		{33, 4, "[9 8 8 8]"}, {0, 3, "[0 0 0]"}, {5, 1, "[5]"},
	} {
		if got := fmt.Sprint(BalancedSplit(c.n, c.k)); got != c.want {
			t.Errorf("BalancedSplit(%d, %d) = %s, want %s", c.n, c.k, got, c.want)
		}
	}
}

func TestShards(t *testing.T) {
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	four, _ := Devices(4)
	for _, c := range []struct {
		shape tensor.Shape
		p     Placement
		nd    string
		want  string // per device: lo..hi
	}{
		{tensor.Shape{16, 32}, mesh, "(S(0), S(1))", "[0 0]..[8 16] [0 16]..[8 32] [8 0]..[16 16] [8 16]..[16 32]"},
		{tensor.Shape{16, 32}, mesh, "(S(0), S(0))", "[0 0]..[4 32] [4 0]..[8 32] [8 0]..[12 32] [12 0]..[16 32]"},
		{tensor.Shape{10}, mesh, "(S(0), S(0))", "[0]..[3] [3]..[5] [5]..[8] [8]..[10]"},
		{tensor.Shape{16, 32}, mesh, "(B, S(1))", "[0 0]..[16 16] [0 16]..[16 32] [0 0]..[16 16] [0 16]..[16 32]"},
		{tensor.Shape{25, 33}, four, "S(0)", "[0 0]..[7 33] [7 0]..[13 33] [13 0]..[19 33] [19 0]..[25 33]"},
		{tensor.Shape{8, 0, 4}, four, "S(1)", "[0 0 0]..[8 0 4] [0 0 0]..[8 0 4] [0 0 0]..[8 0 4] [0 0 0]..[8 0 4]"},
		{tensor.Shape{2}, four, "S(0)", "[0]..[1] [1]..[2] [2]..[2] [2]..[2]"},
	} {
		nd, _ := ParseNd(c.nd)
		shards, err := Shards(c.shape, c.p, nd)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, s := range shards {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%v..%v", s.Lo, s.Hi)
		}
		if got != c.want {
			t.Errorf("%v on %v by %s: %s, want %s", c.shape, c.p, c.nd, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	two, _ := Devices(2)
	mesh, _ := ParsePlacement("[[0,1],[2,3]]")
	for _, c := range []struct {
		shape tensor.Shape
		p     Placement
		nd    NdSbp
		says  string
	}{
		{tensor.Shape{4, 4}, two, NdSbp{S(2)}, "splits axis 2 but the tensor has 2 axes"},
		{tensor.Shape{}, two, NdSbp{S(0)}, "has 0 axes"},
		{tensor.Shape{4}, two, NdSbp{B, B}, "mesh has 1 dims"},
		{tensor.Shape{4}, mesh, NdSbp{B}, "give one per mesh dim"},
		{tensor.Shape{4}, mesh, NdSbp{PSum, P(tensor.MaxAll)}, "mixes P(sum) and P(max)"},
	} {
		err := Validate(c.shape, c.p, c.nd)
		if err == nil || !errors.Is(err, ErrSBP) || !containsAll(err.Error(), c.says, c.nd.String()) {
			t.Errorf("Validate(%v, %v, %v) = %v, want ErrSBP saying %q", c.shape, c.p, c.nd, err, c.says)
		}
	}
}
