package session

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// guard is how long a test waits for something that must happen before
// it calls the wait a deadlock; no test asserts how fast anything is.
const guard = 10 * time.Second

// keystrokes is what a person types into the size field, one value per
// key: they clear it, type typed, then backspace and retype its last
// character until n keys are pressed, ending on typed (n-1-len(typed)
// must be even).
func keystrokes(typed string, n int) []string {
	keys := []string{""}
	for i := 1; i <= len(typed); i++ {
		keys = append(keys, typed[:i])
	}
	for len(keys) < n {
		keys = append(keys, typed[:len(typed)-1], typed)
	}
	return keys
}

// TestTypingComputesOneAtATime types 300 keys into the size field while
// the first compute is still running, as a fast typist overtakes a slow
// backend: the keys coalesce into one waiting compute, so exactly two
// run (the first scene's and the last key's), never two at once, and the
// result shown is the last spec's. The first compute is held until every
// key is in, so the count is the same on any machine.
func TestTypingComputesOneAtATime(t *testing.T) {
	s, err := New(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "1,1,1", "size": "1,1,1"}})
	if err != nil {
		t.Fatal(err)
	}
	const typed = "300,200,100"
	keys := keystrokes(typed, 300)
	if len(keys) != 300 || keys[len(keys)-1] != typed {
		t.Fatalf("keystrokes made %d keys ending %q", len(keys), keys[len(keys)-1])
	}
	first := make(chan struct{})
	release := make(chan struct{})
	ran := make(chan struct{}, len(keys)+1) // room for every compute, should too many run
	var calls atomic.Int32
	s.startComputing(tensor.CPU{}, func(ctx context.Context, sc *viz.Scene, b tensor.Backend) (viz.Section, error) {
		if calls.Add(1) == 1 {
			close(first)
			<-release // a kernel that sees no cancellation until it ends
		}
		return results.Compute(ctx, sc, b)
	}, func() { ran <- struct{}{} })
	defer s.Close()
	<-first
	for _, k := range keys {
		s.SetField("size", k)
	}
	close(release)
	for i := 0; i < 2; i++ {
		select {
		case <-ran:
		case <-time.After(guard):
			t.Fatalf("%d of 2 computes ended", i)
		}
	}
	sec, ready := s.Results()
	if !ready {
		t.Fatalf("no result after the last compute: %+v", sec)
	}
	if n := s.comp.started.Load(); n != 2 {
		t.Errorf("%d computes ran for %d keys, want 2: the first scene's and the last key's", n, len(keys))
	}
	if peak := s.comp.peak.Load(); peak != 1 {
		t.Errorf("at most %d computes ran at once, want exactly 1", peak)
	}
	if got := s.Spec().Get("size"); got != typed {
		t.Errorf("the scene's size is %q, want the last spec's %q", got, typed)
	}
	if !strings.Contains(sec.Title, "[300 200 100]") || !strings.Contains(strings.Join(sec.Lines, "\n"), "output [300 200 100] float32") {
		t.Errorf("the results are %q %q, want the last spec's output [300 200 100]", sec.Title, sec.Lines)
	}
}

// TestCloseStopsTheWorker: Close cancels the compute in flight and
// returns once the worker has stopped.
func TestCloseStopsTheWorker(t *testing.T) {
	s, err := New(mustExample("expand"))
	if err != nil {
		t.Fatal(err)
	}
	running := make(chan struct{})
	s.startComputing(nil, func(ctx context.Context, sc *viz.Scene, b tensor.Backend) (viz.Section, error) {
		close(running)
		<-ctx.Done()
		return viz.Section{}, ctx.Err()
	}, nil)
	<-running
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("Close did not return: the compute in flight was not cancelled")
	}
	if sec, ready := s.Results(); ready {
		t.Errorf("after Close: Results = %+v, ready; want not computed", sec)
	}
}

// TestCloseStartsNoCompute: a scene asked for while Close cancels the
// compute in flight (a key pressed as the window closes) never starts:
// the running compute sees its context cancelled, and Close returns
// without waiting for another. The worker once chose at random between
// quitting and starting the waiting job, under a context nothing
// cancelled; the trials make that chance of passing 2^-64.
func TestCloseStartsNoCompute(t *testing.T) {
	for trial := 0; trial < 64; trial++ {
		s, err := New(mustExample("expand"))
		if err != nil {
			t.Fatal(err)
		}
		running := make(chan struct{})
		saw := make(chan error, 1)
		asked := make(chan struct{})
		var starts atomic.Int32
		s.startComputing(nil, func(ctx context.Context, sc *viz.Scene, b tensor.Backend) (viz.Section, error) {
			if starts.Add(1) > 1 {
				return viz.Section{}, nil // started after Close: counted, and returns so Close can
			}
			close(running)
			<-ctx.Done() // only Close cancels it
			saw <- ctx.Err()
			<-asked
			return viz.Section{}, ctx.Err()
		}, nil)
		c := s.comp
		sc := s.Scene()
		<-running
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case err := <-saw:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("trial %d: the running compute's context ended with %v, want context.Canceled", trial, err)
			}
		case <-time.After(guard):
			t.Fatalf("trial %d: Close did not cancel the running compute's context", trial)
		}
		c.ask(computeJob{rev: 99, scene: sc}) // a key, as the window closes
		close(asked)
		select {
		case <-closed:
		case <-time.After(guard):
			t.Fatalf("trial %d: Close did not return", trial)
		}
		if n := starts.Load(); n != 1 {
			t.Fatalf("trial %d: %d computes started, want 1: a job started after Close", trial, n)
		}
	}
}

// TestResultsArriveAsARevision: a finished compute changes the session's
// revision, so a front end redraws its results panel.
func TestResultsArriveAsARevision(t *testing.T) {
	s, err := New(mustExample("reduce"))
	if err != nil {
		t.Fatal(err)
	}
	before := s.Revision()
	ran := make(chan struct{}, 1)
	s.startComputing(nil, results.Compute, func() {
		select {
		case ran <- struct{}{}:
		default:
		}
	})
	defer s.Close()
	select {
	case <-ran:
	case <-time.After(guard):
		t.Fatal("the compute did not end")
	}
	sec, ready := s.Results()
	if !ready || s.Revision() == before || !strings.Contains(strings.Join(sec.Lines, "\n"), "equals the CPU reference") {
		t.Errorf("revision %d → %d, results %+v (ready %v); want a new revision and the CPU's result", before, s.Revision(), sec, ready)
	}
}
