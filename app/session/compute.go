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
//
// Every compute's context derives from the worker's own, which Close
// cancels. The worker decides whether to start a job under the same lock
// Close cancels under, so once Close has begun no compute starts, and the
// one in flight sees its context done and stops at its next check
// (results.Compute checks before every kernel call and between slabs of
// a CPU kernel): closing the window waits for a slab or one GPU kernel,
// not for a whole compute.

// ComputeFunc runs a scene's op on a backend; results.Compute is the one
// the front ends use.
type ComputeFunc func(ctx context.Context, s *viz.Scene, b tensor.Backend) (viz.Section, error)

// computer is a session's compute worker.
type computer struct {
	run     ComputeFunc
	backend tensor.Backend
	wake    chan struct{} // a job waits (buffered: one wake-up is enough)
	stopped sync.WaitGroup

	mu     sync.Mutex
	ctx    context.Context    // every compute's parent; done once Close begins
	stop   context.CancelFunc // ctx's, called by Close under mu
	next   *computeJob        // the latest scene asked for, not started yet
	cancel context.CancelFunc // the running compute's
	done   computeJob         // the last compute that finished, with its result

	inFlight atomic.Int32  // computes running now: 0 or 1
	peak     atomic.Int32  // the most that ever ran at once
	started  atomic.Uint64 // computes started
	finished atomic.Uint64 // computes finished: each one changes what the panel shows

	// ran, when set (by tests), is called on the worker goroutine after
	// every compute, once its result is stored or dropped. Set before the
	// worker starts, never changed.
	ran func()
}

// computeJob is a scene to compute, keyed by the session's scene revision
// when it was asked for, and once done its section.
type computeJob struct {
	rev   uint64
	scene *viz.Scene
	sec   viz.Section
}

// StartComputing starts the session's compute worker running run (the
// front ends pass results.Compute) on backend b (the CPU reference when
// nil): from now on every scene that builds is computed, and Results
// shows the latest. Close stops it. A front end that computes elsewhere
// (the playground's frame: its page computes in a worker of its own)
// never calls it, and so links no kernel.
func (s *Session) StartComputing(b tensor.Backend, run ComputeFunc) {
	s.startComputing(b, run, nil)
}

// startComputing starts a worker that runs run on b and, when ran is not
// nil, calls it after every compute (tests wait on it).
func (s *Session) startComputing(b tensor.Backend, run ComputeFunc, ran func()) {
	if s.comp != nil {
		return
	}
	s.comp = newComputer(b, run, ran)
	s.comp.ask(computeJob{rev: s.sceneRev, scene: s.built})
}

// newComputer starts a compute worker running run on b.
func newComputer(b tensor.Backend, run ComputeFunc, ran func()) *computer {
	ctx, stop := context.WithCancel(context.Background())
	c := &computer{run: run, backend: b, wake: make(chan struct{}, 1), ctx: ctx, stop: stop, ran: ran}
	c.stopped.Add(1)
	go c.loop()
	return c
}

// Close stops the compute worker: it cancels the compute in flight, starts
// none after it, and returns once the worker has stopped.
func (s *Session) Close() {
	if s.comp == nil {
		return
	}
	s.comp.close()
	s.comp = nil
}

// close cancels every compute, the running one and any not yet started,
// and waits for the worker to return.
func (c *computer) close() {
	c.mu.Lock()
	c.stop() // the running compute's context derives from it
	c.next = nil
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}: // a worker waiting for a job looks again, and returns
	default:
	}
	c.stopped.Wait()
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

// Computing reports whether the session computes and the values of the
// scene on screen are not in yet.
func (s *Session) Computing() bool {
	if s.comp == nil {
		return false
	}
	_, ready := s.Results()
	return !ready
}

// ask makes j the next compute, cancelling the one in flight and
// replacing any that waits. After close it does nothing.
func (c *computer) ask(j computeJob) {
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
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

// take returns the job to run next with its context, or false once the
// worker is closed. It decides under mu, where close cancels, so a job
// never starts after close began.
func (c *computer) take() (*computeJob, context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return nil, nil, false
	}
	j := c.next
	c.next = nil
	if j == nil {
		return nil, nil, true
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.cancel = cancel
	return j, ctx, true
}

// loop runs the waiting job, one at a time, until close.
func (c *computer) loop() {
	defer c.stopped.Done()
	for range c.wake {
		j, ctx, ok := c.take()
		if !ok {
			return
		}
		if j == nil {
			continue
		}
		c.started.Add(1)
		n := c.inFlight.Add(1)
		for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
		}
		sec, err := c.run(ctx, j.scene, c.backend)
		c.inFlight.Add(-1)
		if err != nil {
			sec = viz.Section{Title: "compute", Lines: []string{err.Error()}}
		}

		c.mu.Lock()
		// A later scene asked meanwhile, or close began: this result is
		// stale (and, when cancelled, only an error).
		keep := c.next == nil && ctx.Err() == nil
		c.cancel() // releases ctx's resources
		c.cancel = nil
		if keep {
			j.sec = sec
			c.done = *j
		}
		c.mu.Unlock()
		if keep {
			c.finished.Add(1)
		}
		if c.ran != nil {
			c.ran()
		}
	}
}
