package minsum

import "context"

// Poller lets the planner's long loops end when their context does:
// each loop reports the work it does (a table entry filled, an op
// chosen, a variable scored for the elimination order, a tree of
// boxings costed) and every pollEvery units of it the context is read
// once. A plan whose context is already done stops at the first read.
type Poller struct {
	Ctx  context.Context
	done int // units of work reported
	next int // done at the next read of ctx
	// OnPoll, when set (by tests), is called at each read, before it,
	// with the units done: a test cancels there, after so much work, not
	// after so much wall time.
	OnPoll func(done int)
}

// PollEvery is the work between two reads of the context. A unit is a
// few nanoseconds (a table entry) to a microsecond (a tree of boxings),
// so a cancelled plan stops within a few milliseconds, and reading the
// context (a mutex) costs under 1% of the work.
const PollEvery = 1 << 12

// Tick reports n units of work and, once pollEvery have passed since the
// last read, returns the context's error.
func (p *Poller) Tick(n int) error {
	if p == nil {
		return nil
	}
	p.done += n
	if p.done < p.next {
		return nil
	}
	p.next = p.done + PollEvery
	if p.OnPoll != nil {
		p.OnPoll(p.done)
	}
	return p.Ctx.Err()
}
