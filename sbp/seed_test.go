package sbp

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// The seed's example: logical input [4,3,1,2] (strides [6,2,2,1]) expanded
// to [2,4,3,4,2] with S(3) on 2 devices.
func TestSeedExpandRewrite(t *testing.T) {
	p, _ := Devices(2)
	plan, err := PlanOp(Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, p, []NdSbp{{S(3)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.OutSbp.String(); got != "S(4)" {
		t.Errorf("out SBP %s, want S(4)", got)
	}
	for _, r := range plan.Ranks {
		got := fmt.Sprint(r.InShape, r.InStride, r.ExpandSize, r.OutStride, r.OutShape)
		if want := "[4 3 1 1] [3 1 1 1] [2 4 3 4 1] [0 3 1 0 1] [2 4 3 4 1]"; got != want {
			t.Errorf("rank %d: in shape, in strides, expand size, out strides, out shape = %s, want %s", r.Rank, got, want)
		}
	}
	b, _ := json.Marshal(plan)
	var keys struct {
		OutSbp string `json:"out_sbp"`
		Ranks  []map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &keys); err != nil || keys.OutSbp != "S(4)" {
		t.Fatalf("JSON %s: out_sbp %q, %v", b, keys.OutSbp, err)
	}
	for _, k := range []string{"rank", "in_shape", "in_stride", "expand_size", "out_stride", "out_shape"} {
		if _, ok := keys.Ranks[0][k]; !ok {
			t.Errorf("JSON rank has no key %q: %s", k, b)
		}
	}
}

// Uneven splits of the seed's example: 2 over 3 and 4 devices leave
// devices with a shard of size 1 and 0 along the split axis; the split
// axis is never broadcast.
func TestSeedExpandUneven(t *testing.T) {
	for _, n := range []int{3, 4} {
		p, _ := Devices(n)
		plan, err := PlanOp(Expand([]int{2, 4, 3, 4, 2}), []tensor.Shape{{4, 3, 1, 2}}, p, []NdSbp{{S(3)}})
		if err != nil {
			t.Fatal(err)
		}
		sizes := BalancedSplit(2, n)
		for r, rp := range plan.Ranks {
			want := fmt.Sprintf("[4 3 1 %d] [2 4 3 4 %d]", sizes[r], sizes[r])
			if got := fmt.Sprint(rp.InShape, rp.ExpandSize); got != want {
				t.Errorf("%d devices, rank %d: in shape, expand size = %s, want %s", n, r, got, want)
			}
		}
	}
}
