package session

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// A session computes its scene's op (results.Compute) on one worker
// goroutine of its own, one compute at a time. A scene that replaces the
// one on screen cancels the compute in flight (through its context) and
// takes the place of any that waits, so typing 1000,1000,1000 one key at
// a time never runs two computes at once, each with the whole result
// budget, and only the latest scene's result is ever shown.

// ComputeFunc runs a scene's op on a backend; results.Compute is the one
// the front ends use.
type ComputeFunc func(ctx context.Context, s *viz.Scene, b tensor.Backend) (viz.Section, error)

// computer is a session's compute worker.
type computer struct {
	run     ComputeFunc
	backend tensor.Backend
	wake    chan struct{} // a job waits (buffered: one wake-up is enough)
	quit    chan struct{}
	stopped sync.WaitGroup

	mu     sync.Mutex
	next   *computeJob        // the latest scene asked for, not started yet
	cancel context.CancelFunc // the running compute's
	done   computeJob         // the last compute that finished, with its result

	inFlight atomic.Int32  // computes running now: 0 or 1
	peak     atomic.Int32  // the most that ever ran at once
	finished atomic.Uint64 // computes finished: each one changes what the panel shows
}

// computeJob is a scene to compute, keyed by the session's scene revision
// when it was asked for, and once done its section.
type computeJob struct {
	rev   uint64
	scene *viz.Scene
	sec   viz.Section
}

// StartComputing starts the session's compute worker on backend b (the
// CPU reference when nil): from now on every scene that builds is
// computed, and Results shows the latest. Close stops it.
func (s *Session) StartComputing(b tensor.Backend) {
	s.startComputing(b, results.Compute)
}

func (s *Session) startComputing(b tensor.Backend, run ComputeFunc) {
	if s.comp != nil {
		return
	}
	c := &computer{run: run, backend: b, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	s.comp = c
	c.stopped.Add(1)
	go c.loop()
	c.ask(computeJob{rev: s.sceneRev, scene: s.built})
}

// Close stops the compute worker, cancelling the compute in flight.
func (s *Session) Close() {
	if s.comp == nil {
		return
	}
	c := s.comp
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	close(c.quit)
	c.stopped.Wait()
	s.comp = nil
}

// Results is the computed section of the scene on screen, and whether it
// is ready: while the scene is being computed (or when the session does
// not compute) it is a section that says so. While a lesson's question is
// open the values are hidden (results.Hidden: over arange inputs an
// expand's values are the offsets it reads): they show once it is
// answered.
func (s *Session) Results() (viz.Section, bool) {
	if s.comp == nil {
		return viz.Section{Title: "not computed"}, false
	}
	c := s.comp
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done.scene == nil || c.done.rev != s.sceneRev {
		return viz.Section{Title: "computing…"}, false
	}
	if s.answering() {
		return results.Hidden(c.done.sec), true
	}
	return c.done.sec, true
}

// ask makes j the next compute, cancelling the one in flight and
// replacing any that waits.
func (c *computer) ask(j computeJob) {
	c.mu.Lock()
	c.next = &j
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// loop runs the waiting job, one at a time, until quit.
func (c *computer) loop() {
	defer c.stopped.Done()
	for {
		select {
		case <-c.quit:
			return
		case <-c.wake:
		}
		c.mu.Lock()
		j := c.next
		c.next = nil
		if j == nil {
			c.mu.Unlock()
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		c.cancel = cancel
		c.mu.Unlock()

		n := c.inFlight.Add(1)
		for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
		}
		sec, err := c.run(ctx, j.scene, c.backend)
		c.inFlight.Add(-1)
		cancel()
		if err != nil {
			sec = viz.Section{Title: "compute", Lines: []string{err.Error()}}
		}

		c.mu.Lock()
		c.cancel = nil
		superseded := c.next != nil // a later scene asked meanwhile
		if !superseded {
			j.sec = sec
			c.done = *j
		}
		c.mu.Unlock()
		if !superseded {
			c.finished.Add(1)
		}
	}
}
