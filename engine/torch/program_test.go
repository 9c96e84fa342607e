package torch

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

func planOf(t *testing.T, src string, s planner.Strategy) *planner.Plan {
	t.Helper()
	p, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := planner.NewPlan(p, s)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestPrograms runs whole programs, forward and backward, on the torch
// engine: every name and gradient equals the simulated run's and one
// device's, every rank's measured bytes equal the plan's where the
// engine ran the plan's collective, and no worker or job folder is left.
func TestPrograms(t *testing.T) {
	needTorch(t)
	c, _ := tensor.FromSlice(tensor.Shape{5}, []float32{1, 2, 3, 4, 5})
	cases := []struct {
		src      string
		strategy planner.Strategy
		inputs   planner.Values
	}{
		// The gallery's program: data parallelism, the weight's gradient all-reduced.
		{"placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s", planner.Greedy, nil},
		// A 2-D mesh: rows of x over one mesh dim, columns of w over the other.
		{"placement [[0,1],[2,3]]; x = input 9,6 (S(0), B); w = input 6,5 (B, S(1)); y = matmul x w; b = input 5 (B, B); z = add y b; m = max z 1,5; s = sum m 1,1; grad s", planner.Greedy, nil},
		// Uneven splits over 3 devices and every backward op: sub (scale),
		// max (eq, div), repeat (repeat_grad), expand, div, min, given inputs.
		{"placement 3; a = input 7,5 S(0); c = input 5 B; d = sub a c; e = max d a; f = repeat e 2,1; g = expand c 7,5; h = div e g; m = min h 7,1; s = sum f 1,1; u = sum m 1,1; v = add s u; grad v", planner.Greedy, planner.Values{"c": c}},
		// Partial inputs: P(sum) and P(max), spread over the devices;
		// planned exactly.
		{"placement 2; x = input 6,4 P; y = input 6,4 P(max); z = input 4,3 S(0); w = matmul x z; k = max y y; s = sum w 1,1; r = max k 1,4; q = add s r; grad q", planner.Exact, nil},
		// The unary ops and mean, forward and backward (step, neg, scale
		// and expand among the gradients' ops), uneven over 3 devices
		// and on a 2×2 mesh.
		{"placement 3; x = input 7,5 S(0); w = input 5,4 B; h = matmul x w; r = relu h; t = tanh r; m = mean t 7,1; q = sqrt m; l = log q; k = rsqrt m; e = exp k; n = neg e; a = add l n; s = sum a 1,1; grad s", planner.Greedy, nil},
		// The views: a reshape to heads, permutes and a transpose, and
		// uneven reshapes the planner boxes first, on 4 devices and a 2×2 mesh.
		{"placement 4; x = input 8,6 S(0); w = input 6,8 B; h = matmul x w; v = reshape h 8,2,4; q = permute v 1,0,2; t = transpose q; u = reshape t 2,-1; s = sum u 1,1; grad s", planner.Greedy, nil},
		{"placement [[0,1],[2,3]]; x = input 7,6 (S(0), S(1)); r = reshape x 42; e = exp r; y = reshape e 3,14; z = transpose y; s = sum z 1,1; grad s", planner.Exact, nil},
		{"placement [[0,1],[2,3]]; x = input 5,6 (S(0), S(1)); m = mean x 1,6; c = sub x m; v = mul c c; u = mean v 5,1; r = rsqrt u; y = mul c r; s = sum y 1,1; grad s", planner.Greedy, nil},
		// softmax along a split dim (boxed) and a kept one, forward and
		// backward, uneven over 3 devices and exactly on a 2×2 mesh.
		{"placement 3; x = input 7,5 S(1); y = softmax x -1; w = input 7,5 S(0); z = mul y w; p = softmax z 0; s = sum p 1,5; q = mul s s; t = sum q 1,1; grad t", planner.Greedy, nil},
		{"placement [[0,1],[2,3]]; x = input 4,6,5 (S(0), S(2)); y = softmax x 1; l = log y; s = sum l 1,1,1; grad s", planner.Exact, nil},
		// Inputs from uniform (values in [-1, 1), so tanh and softmax
		// do not saturate), split unevenly on a 2×2 mesh.
		{"placement [[0,1],[2,3]]; x = input 5,6 (S(0), B) from uniform; w = input 6,7 (B, S(1)) from uniform; h = matmul x w; t = tanh h; p = softmax t -1; s = sum p 1,7; q = mul s s; r = sum q 1,1; grad r", planner.Greedy, nil},
	}
	for _, tc := range cases {
		t.Run(tc.src[:strings.Index(tc.src, ";")], func(t *testing.T) { runProgram(t, tc.src, tc.strategy, tc.inputs) })
	}
}

// TestGalleryPrograms runs every program of the gallery
// (docs/gallery/gallery.sh), forward and gradients, on the torch engine.
func TestGalleryPrograms(t *testing.T) {
	needTorch(t)
	list, err := os.ReadFile("../../docs/gallery/gallery.sh")
	if err != nil {
		t.Fatal(err)
	}
	src := regexp.MustCompile(`--src '([^']*)'`)
	n := 0
	for _, line := range strings.Split(string(list), "\n") {
		name, args, _ := strings.Cut(line, "|")
		m := src.FindStringSubmatch(args)
		if !strings.HasPrefix(args, "program ") || m == nil {
			continue
		}
		strategy := planner.Greedy
		if strings.Contains(strings.SplitN(args, "|", 2)[0], "--strategy exact") {
			strategy = planner.Exact
		}
		n++
		t.Run(name, func(t *testing.T) { runProgram(t, m[1], strategy, nil) })
	}
	if n < 5 {
		t.Errorf("%d programs in the gallery, want at least 5", n)
	}
}

// runProgram runs src on the torch engine (testPool's workers) and checks
// it: its values equal the simulated run's and one device's, every rank
// ran in a process of its own, which the pool keeps, and no other is
// left, no job folder is left, and each rank's bytes are the plan's.
func runProgram(t *testing.T, src string, strategy planner.Strategy, inputs planner.Values) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pl := planOf(t, src, strategy)
	start := time.Now()
	// (values and bytes: no timed runs of the collectives, which
	// timing_test checks)
	res, err := pooled(t, Options{TimeRuns: -1}).Run(context.Background(), pl, inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Values.Release()
	t.Logf("%s: %v", src, time.Since(start).Round(time.Millisecond))
	var pids []int
	for _, r := range res.Ranks {
		pids = append(pids, r.Pid)
		if r.Setup <= 0 {
			t.Errorf("rank %d (pid %d) reports a setup of %v", r.Rank, r.Pid, r.Setup)
		}
	}
	keptWorkers(t, pids...)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v in the temporary folder", left)
	}
	sim, err := engine.Sim{}.Run(context.Background(), pl, inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Values.Release()
	one, err := pl.Reference(inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Release()
	for _, want := range []planner.Values{sim.Values, one} {
		for _, a := range engine.Compare(res.Values, want) {
			if !a.Agrees {
				t.Errorf("%s: %s", a.Name, a.Verdict(""))
			}
		}
	}
	checkBytes(t, pl, res)
}

// checkBytes checks every rank's measured bytes against the plan's: equal
// where the engine ran the plan's collective; a reduce-scatter, run as an
// all-reduce and a slice, counts the all-reduce's ring, and the notes say
// so.
func checkBytes(t *testing.T, pl *planner.Plan, res *engine.Result) {
	t.Helper()
	p := pl.Program.Placement
	scatters := 0
	for k, s := range pl.Steps {
		if s.Kind != planner.StepBoxing {
			continue
		}
		bx, err := s.PlannedBoxing()
		if err != nil {
			t.Fatal(err)
		}
		for pos, r := range res.Ranks {
			sr := r.Steps[k]
			if sr.Time <= 0 {
				t.Errorf("rank %d step %s: time %v", r.Rank, s.Name, sr.Time)
			}
			for j, c := range sr.Collectives {
				wantSend, wantRecv := c.PlanSendBytes, c.PlanRecvBytes
				if c.Collective == sbp.ReduceScatter && c.Ran != "none" {
					scatters++
					wantSend, wantRecv = ringBytes(p, bx.Steps[j], pos)
				}
				if c.SendBytes != wantSend || c.RecvBytes != wantRecv {
					t.Errorf("rank %d step %s (%s as %s): measured %d/%d, want %d/%d (the plan's %d/%d)", r.Rank, s.Name, c.Collective, c.Ran,
						c.SendBytes, c.RecvBytes, wantSend, wantRecv, c.PlanSendBytes, c.PlanRecvBytes)
				}
			}
		}
	}
	noted := false
	for _, n := range res.Notes {
		noted = noted || strings.Contains(n, "reduce-scatter done as all-reduce + slice")
	}
	if noted != (scatters > 0) {
		t.Errorf("%d reduce-scatters ran, but the notes %q", scatters, res.Notes)
	}
}
