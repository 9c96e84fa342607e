package torch

import (
	"sync"
	"time"
)

// Pool keeps the workers of the runs handed it (Options.Pool) for the
// next run of their kind. The first run on n devices starts its n
// workers as a run without a pool does; once they have written their
// reports they stay, torch imported and torch.distributed joined, each
// waiting on its stdin. The next run on n devices with the same
// interpreter and port, and a timeout no longer than the first's (which
// torch.distributed took as its own when the workers joined it), hands
// them its job folder and waits for their reports: it pays none of
// their start. Each kind has at most one gang waiting: a run that finds
// none fit starts its own, and the one with the longer timeout is kept.
// A run that fails, passes its timeout or whose ctx ends kills its
// gang, as without a pool, and the next run of that kind starts a fresh
// one.
//
// A Pool is safe for use by several goroutines. Close ends its workers.
type Pool struct {
	mu     sync.Mutex
	gangs  map[gangKey]*gang // the gang waiting, by kind
	closed bool
}

// gangKey is the kind of run a gang can serve: the interpreter, the
// number of devices and the port asked for (0: any).
type gangKey struct {
	python string
	size   int
	port   int
}

// NewPool returns a pool that keeps no workers yet.
func NewPool() *Pool { return &Pool{gangs: map[gangKey]*gang{}} }

// take hands out the gang waiting for runs of kind k whose timeout is
// no longer than its own, or nil: none waits, none fits (it waits on),
// p is nil, or a worker of the gang exited while it waited (the gang is
// stopped).
func (p *Pool) take(k gangKey, timeout time.Duration) *gang {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	g := p.gangs[k]
	if g == nil || g.joined < timeout {
		p.mu.Unlock()
		return nil
	}
	delete(p.gangs, k)
	p.mu.Unlock()
	if !g.alive() {
		g.stop()
		return nil
	}
	return g
}

// keep takes g back after a run that succeeded, to wait for the next
// run of kind k. A closed pool stops g; of g and a gang of that kind
// waiting already, the one that joined with the longer timeout waits
// and the other is stopped.
func (p *Pool) keep(k gangKey, g *gang) {
	p.mu.Lock()
	old := p.gangs[k]
	switch {
	case p.closed || (old != nil && old.joined >= g.joined):
		old, g = g, nil
	default:
		p.gangs[k] = g
	}
	p.mu.Unlock()
	if old != nil {
		old.stop()
	}
}

// Close kills every worker the pool keeps and waits until each has been
// reaped. A run going on when Close is called stops its own workers
// when it ends, and a run after Close starts and stops its own, as
// without a pool: once Close and every run have returned, no worker
// lives. Close always returns nil.
func (p *Pool) Close() error {
	p.mu.Lock()
	gangs := p.gangs
	p.gangs, p.closed = map[gangKey]*gang{}, true
	p.mu.Unlock()
	for _, g := range gangs {
		g.stop()
	}
	return nil
}
