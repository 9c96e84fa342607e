package viz

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
)

const memoSrc = "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"

// TestPlanMemoSharesAPlan: the scenes of one program share one plan, made
// once; another strategy or another text is another plan.
func TestPlanMemoSharesAPlan(t *testing.T) {
	made := CountPlans(t)
	spec := Spec{Scene: "program", Values: map[string]string{"src": memoSrc}}
	a, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Step = 3
	b, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if made() != 1 || a.Model() != b.Model() || a.Work().(*ProgramWork).Plan != b.Model() {
		t.Errorf("two scenes of one program: %d plans, shared %v; want one plan, the model and the work's", made(), a.Model() == b.Model())
	}
	exact := Spec{Scene: "program", Values: map[string]string{"src": memoSrc, "strategy": "exact"}}
	if _, err := Build(exact); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Spec{Scene: "program", Values: map[string]string{"src": memoSrc + "\n"}}); err != nil {
		t.Fatal(err)
	}
	if made() != 3 {
		t.Errorf("the program under exact and spelt anew: %d plans in all, want 3", made())
	}
}

// TestPlanMemoKeepsTheLastFew: the memo holds planMemoSize plans, the
// most recently asked for; an older one is planned again.
func TestPlanMemoKeepsTheLastFew(t *testing.T) {
	made := CountPlans(t)
	src := func(i int) string { return fmt.Sprintf("%s # %d", memoSrc, i) }
	for i := range planMemoSize + 1 {
		if _, err := plans.plan(src(i), ""); err != nil {
			t.Fatal(err)
		}
		if i == planMemoSize-1 { // asking again for the first makes it the most recent
			if _, err := plans.plan(src(0), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	if made() != planMemoSize+1 || len(plans.entries) != planMemoSize {
		t.Fatalf("%d sources: %d plans, %d kept; want %d and %d", planMemoSize+1, made(), len(plans.entries), planMemoSize+1, planMemoSize)
	}
	if _, err := plans.plan(src(0), ""); err != nil || made() != planMemoSize+1 {
		t.Errorf("the first source, asked for again of late: %d plans, want it kept", made())
	}
	if _, err := plans.plan(src(1), ""); err != nil || made() != planMemoSize+2 {
		t.Errorf("the second source, the oldest: %d plans, want it planned again", made())
	}
}

// TestPlanMemoKeepsErrors: a program that does not parse is refused
// once, with the error on its field each time.
func TestPlanMemoKeepsErrors(t *testing.T) {
	CountPlans(t) // a memo of its own
	spec := Spec{Scene: "program", Values: map[string]string{"src": "placement 4; x = input 16,8 S(0); w = input 4,4 B; y = matmul x w"}}
	var errs []error
	for range 2 {
		_, err := Build(spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "src" {
			t.Errorf("a matmul of 16,8 by 4,4: %v, want an error on src", err)
		}
		errs = append(errs, err)
	}
	if errs[0] != errs[1] {
		t.Errorf("built twice: two errors (%v), want the one kept", errs[1])
	}
}

// TestPlanMemoPlansOnceAtOnce: goroutines asking at once for one program
// wait for one plan.
func TestPlanMemoPlansOnceAtOnce(t *testing.T) {
	made := CountPlans(t)
	var wg sync.WaitGroup
	got := make([]*program.Plan, 8)
	for i := range got {
		wg.Go(func() {
			p, err := plans.plan(memoSrc, "")
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	for _, p := range got {
		if p != got[0] {
			t.Fatal("goroutines got different plans of one program")
		}
	}
	if made() != 1 {
		t.Errorf("8 goroutines at once: %d plans, want 1", made())
	}
}
