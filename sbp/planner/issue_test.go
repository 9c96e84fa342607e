package planner

import (
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

// The programs of issue 30, planned exactly: an op whose inputs fit
// several signatures offers every output they allow (expand's B -> B
// beside B -> S(0)), so none of them gathers what it split.
func TestExactOnTheIssuesPrograms(t *testing.T) {
	for _, c := range []struct {
		name, src string
		most      int64
	}{
		{"a B input expanded for a split weight", "placement 4; g = input 1,1 B; w = input 16,32 S(1); e = expand g 8,16; m = matmul e w", 0},
		{"a backward that starts from a sum", "placement 4; a = input 8,32 S(1); w2 = input 32,16 S(0); y = matmul a w2; s = sum y 1,1; grad s", 0},
		{"Megatron's MLP", "placement 4; x = input 8,16 B; w1 = input 16,32 S(1); h = matmul x w1; zero = input 1 B; r = max h zero; w2 = input 32,16 S(0); y = matmul r w2; s = sum y 1,1; grad s", 3096},
	} {
		p, err := program.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(p, Exact)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if plan.TotalSendBytes > c.most {
			t.Errorf("%s: exact sends %d bytes, want at most %d\n%s", c.name, plan.TotalSendBytes, c.most, c.src)
		}
		if plan.ExactSendBytes == nil || *plan.ExactSendBytes != plan.TotalSendBytes {
			t.Errorf("%s: exact_send_bytes %v, total %d", c.name, plan.ExactSendBytes, plan.TotalSendBytes)
		}
	}
}

// A boxing starts from the cheapest copy made already: x's B copy, made
// for b, is sliced to S(1) for c, sending nothing, and the step says so.
func TestBoxingFromACopy(t *testing.T) {
	p, err := program.Parse("placement 4; x = input 8,8 S(0); b = box x B; c = box x S(1)")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Strategy{Greedy, Exact} {
		plan, err := NewPlan(p, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range plan.Steps {
			if st.Name == "c" && (st.FromCopy != "b" || st.From.String() != "B" || st.SendBytes != 0 || st.Reads()[0] != "b") {
				t.Errorf("%s: c is boxed from %q (%s), reading %v, sending %d; want from b's B copy, sending 0", s, st.FromCopy, st.From, st.Reads(), st.SendBytes)
			}
		}
		if want := int64(8 * 8 * 4 * 3); plan.TotalSendBytes != want {
			t.Errorf("%s: the plan sends %d, want the all-gather's %d alone", s, plan.TotalSendBytes, want)
		}
	}
}
