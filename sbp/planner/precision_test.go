package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// TestPrecisionHalvesBytes: the same program in bf16 sends half the
// bytes of its f32 twin in every boxing, holds half at every step, its
// ops take at most half the time (half the bytes, the chip's 16-bit
// peak), every step says bf16 in the
// JSON (f32 says nothing), and the plan is the same.
func TestPrecisionHalvesBytes(t *testing.T) {
	src := "placement 4; x = const 64,256 S(0) P; w = input 256,128 B P; y = matmul x w; z = relu y; s = sum z 1,1; grad s"
	node, _ := cluster.Preset("h100-node")
	plans := map[string]*Plan{}
	for _, p := range []string{"f32", "bf16"} {
		prog, err := program.Parse(strings.ReplaceAll(src, " P;", " "+p+";"))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlanWith(prog, Exact, Options{Cluster: &node})
		if err != nil {
			t.Fatal(err)
		}
		plans[p] = plan
	}
	full, half := plans["f32"], plans["bf16"]
	if len(full.Steps) != len(half.Steps) || full.TotalSendBytes != 2*half.TotalSendBytes || half.TotalSendBytes == 0 {
		t.Fatalf("f32 sends %d bytes in %d steps, bf16 %d in %d: want half", full.TotalSendBytes, len(full.Steps), half.TotalSendBytes, len(half.Steps))
	}
	for k, f := range full.Steps {
		h := half.Steps[k]
		if h.Precision != tensor.BF16 || f.Precision != tensor.F32 || f.SendBytes != 2*h.SendBytes || f.HeldBytes[0] != 2*h.HeldBytes[0] {
			t.Errorf("step %d %s: f32 %v sends %d holds %d, bf16 %v sends %d holds %d", k+1, f.Name, f.Precision, f.SendBytes, f.HeldBytes[0], h.Precision, h.SendBytes, h.HeldBytes[0])
		}
		// half the bytes and a peak 14.8 times float32's: at most half the time
		if f.Kind == StepOp && (h.TimeS <= 0 || h.TimeS > f.TimeS/2*1.0001) {
			t.Errorf("step %d %s: bf16 takes %g s, f32 %g s: want at most half", k+1, h.Name, h.TimeS, f.TimeS)
		}
	}
	for p, plan := range plans {
		b, _ := json.Marshal(plan.Steps[1])
		if has := strings.Contains(string(b), `"precision":"bf16"`); has != (p == "bf16") || strings.Contains(string(b), `"precision":"f32"`) {
			t.Errorf("%s: step 2's JSON %s", p, b)
		}
	}
}

// TestOverlapRunsGradientsBesideTheBackward: data parallelism's
// all-reduce of the second layer's gradient, ready before the first
// layer's backward is done, runs beside it on the communication stream:
// the overlapped time is less than the sum, at least either stream's
// work, and the gradient made last (the first layer's) waits for its
// matmul.
func TestOverlapRunsGradientsBesideTheBackward(t *testing.T) {
	node, _ := cluster.Preset("h100-node")
	prog, err := program.Parse("placement 8; x = const 65536,2048 S(0) bf16; w1 = input 2048,2048 B bf16; w2 = input 2048,2048 B bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlanWith(prog, Greedy, Options{Cluster: &node})
	if err != nil {
		t.Fatal(err)
	}
	tm := plan.Timing
	if tm.OverlapTimeS >= tm.TimeS || tm.OverlapTimeS < max(tm.CommTimeS, tm.ComputeTimeS) {
		t.Errorf("overlapped %g s; compute %g, communication %g, summed %g", tm.OverlapTimeS, tm.ComputeTimeS, tm.CommTimeS, tm.TimeS)
	}
}
