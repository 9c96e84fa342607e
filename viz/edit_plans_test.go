package viz_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// TestAnEditPlansOnce: one edit of a program, in the playground (the
// page's wasm calls and the frame's session) and in the desktop app (a
// field typed, its results computed), plans the program once.
func TestAnEditPlansOnce(t *testing.T) {
	programs := editPrograms(t)
	if runtime.GOOS == "js" { // make test-wasm: a sample (every fourth), in the browser's runtime
		programs = everyNth(programs, 4)
	}
	for _, p := range programs {
		t.Run(p.name+"/playground", func(t *testing.T) {
			frame, err := session.New(p.base)
			if err != nil {
				t.Fatal(err)
			}
			plans := viz.CountPlans(t)
			playgroundEdit(t, frame, p.edit)
			if n := plans(); n != 1 {
				t.Errorf("one edit planned the program %d times, want once", n)
			}
		})
		t.Run(p.name+"/desktop", func(t *testing.T) {
			s, err := session.New(p.base)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.StartComputing(tensor.CPU{}, results.Compute)
			plans := viz.CountPlans(t)
			s.SetField("src", p.edit.Get("src"))
			if _, err := s.Err(); err != nil {
				t.Fatal(err)
			}
			for _, sz := range []viz.Size{viz.DefaultSize, {W: 1000, H: 600}} {
				if _, err := s.Frame(sz); err != nil {
					t.Fatal(err)
				}
			}
			s.State()
			s.Report()
			waitResults(t, s)
			if n := plans(); n != 1 {
				t.Errorf("one edit planned the program %d times, want once", n)
			}
		})
	}
}

// waitResults waits for the session's compute of its scene.
func waitResults(t testing.TB, s *session.Session) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, ok := s.Results(); ok {
			return
		}
	}
	t.Fatal("no results in 30 s")
}

// everyNth is every nth of xs, from the first: the sample a test takes
// under GOOS=js, whose runtime is 5-10 times slower than the native one
// (the native run takes them all).
func everyNth[T any](xs []T, n int) []T {
	var out []T
	for i := 0; i < len(xs); i += n {
		out = append(out, xs[i])
	}
	return out
}
