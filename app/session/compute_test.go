package session

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// TestTypingComputesOneAtATime types a large size one key at a time, as a
// person would, while every scene that builds is computed: never more
// than one compute runs at once, and once typing stops the scene and the
// results are the last spec's.
func TestTypingComputesOneAtATime(t *testing.T) {
	s, err := New(viz.Spec{Scene: "expand", Values: map[string]string{"shape": "1,1,1", "size": "1,1,1"}})
	if err != nil {
		t.Fatal(err)
	}
	var started atomic.Int32
	s.startComputing(tensor.CPU{}, func(ctx context.Context, sc *viz.Scene, b tensor.Backend) (viz.Section, error) {
		started.Add(1)
		time.Sleep(2 * time.Millisecond) // long enough for keys to overtake it
		return results.Compute(ctx, sc, b)
	})
	defer s.Close()
	typed := "300,200,100"
	for i := 1; i <= len(typed); i++ {
		s.SetField("size", typed[:i])
		time.Sleep(300 * time.Microsecond) // a fast typist
	}
	deadline := time.Now().Add(10 * time.Second)
	sec, ready := s.Results()
	for !ready && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		sec, ready = s.Results()
	}
	if !ready {
		t.Fatalf("no result 10 s after the last key: %+v", sec)
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
	if n := started.Load(); n >= int32(len(typed)) {
		t.Logf("%d computes started for %d keys: none was skipped (a slow machine)", n, len(typed))
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
	})
	<-running
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: the compute in flight was not cancelled")
	}
	if sec, ready := s.Results(); ready {
		t.Errorf("after Close: Results = %+v, ready; want not computed", sec)
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
	s.StartComputing(nil)
	defer s.Close()
	for i := 0; i < 5000 && s.Revision() == before; i++ {
		time.Sleep(time.Millisecond)
	}
	sec, ready := s.Results()
	if !ready || s.Revision() == before || !strings.Contains(strings.Join(sec.Lines, "\n"), "equals the CPU reference") {
		t.Errorf("revision %d → %d, results %+v (ready %v); want a new revision and the CPU's result", before, s.Revision(), sec, ready)
	}
}
