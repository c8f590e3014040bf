package slackbot

import (
	"context"
	"sync"
)

// pool runs acknowledged work on at most a fixed number of goroutines, so
// that the event loop never waits for a decision and decisions never
// starve acks of CPU. A goroutine starts when work arrives and no more than
// the limit run, and returns when the queue is empty: an idle bot holds no
// idle workers' stacks, and new work wakes one goroutine, not all. Its
// queue is unbounded: the event loop must never block, or the Socket Mode
// client stops reading and misses pings. Work is never lost silently: what
// the workers did not finish when their context ended is handed back by
// leftovers.
type pool struct {
	mu          sync.Mutex
	queue       []job
	interrupted []job // started, and still running when the context ended
	closed      bool
	panics      func(any)

	ctx     context.Context // set by run: the workers' context
	limit   int             // how many workers may run at once
	running int
	done    chan struct{} // closed when the workers have returned for good
	ended   bool          // done is closed
}

// job is acknowledged work: run does it; abandon, if not nil, tells the
// person it was not done (started: it was cut short, so it may have been).
type job struct {
	run     func(ctx context.Context)
	abandon func(ctx context.Context, started bool)
}

func newPool(panics func(any)) *pool {
	return &pool{panics: panics}
}

// push queues j behind the waiting work.
func (p *pool) push(j job) { p.add(j, false) }

// pushFront queues j ahead of the waiting work, for work that must start
// within Slack's 3-second trigger window.
func (p *pool) pushFront(j job) { p.add(j, true) }

func (p *pool) add(j job, front bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if front {
		p.queue = append([]job{j}, p.queue...)
	} else {
		p.queue = append(p.queue, j)
	}
	p.startLocked()
}

// startLocked starts one more worker if there is work, run has been
// called, its context is live and the limit allows. The workers that run
// are all busy or taking the next job, so each job queued may start one.
func (p *pool) startLocked() {
	if p.ctx == nil || p.ended || p.running >= p.limit || len(p.queue) == 0 || p.ctx.Err() != nil {
		return
	}
	p.running++
	go p.work()
}

// close lets the workers return for good once the queue is empty.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.endLocked()
}

// endLocked closes done once no worker runs and none will: the context
// ended, or the pool is closed with nothing queued.
func (p *pool) endLocked() {
	if p.done == nil || p.ended || p.running > 0 {
		return
	}
	if p.ctx.Err() != nil || (p.closed && len(p.queue) == 0) {
		p.ended = true
		close(p.done)
	}
}

// leftovers takes the work the workers did not finish: still queued (never
// started) and cut short by the end of their context. Call it after the
// workers have returned.
func (p *pool) leftovers() (queued, interrupted []job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	queued, interrupted = p.queue, p.interrupted
	p.queue, p.interrupted = nil, nil
	return queued, interrupted
}

// run lets at most n workers run on ctx, starting them for the work
// queued so far, and returns a channel closed when the workers have
// returned for good: after close once the queue is empty, or when ctx is
// done (work still queued then stays for leftovers).
func (p *pool) run(ctx context.Context, n int) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx, p.limit, p.done = ctx, n, make(chan struct{})
	for range min(n, len(p.queue)) {
		p.startLocked()
	}
	done := p.done
	go func() {
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.endLocked()
			p.mu.Unlock()
		case <-done:
		}
	}()
	return done
}

// work runs queued jobs until the queue is empty or the context ends.
func (p *pool) work() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 || p.ctx.Err() != nil {
			p.running--
			p.endLocked()
			p.mu.Unlock()
			return
		}
		j := p.queue[0]
		p.queue[0] = job{}
		p.queue = p.queue[1:]
		p.mu.Unlock()
		p.do(p.ctx, j)
	}
}

func (p *pool) do(ctx context.Context, j job) {
	defer func() {
		if r := recover(); r != nil && p.panics != nil {
			p.panics(r)
		}
		if ctx.Err() != nil {
			p.mu.Lock()
			p.interrupted = append(p.interrupted, j)
			p.mu.Unlock()
		}
	}()
	j.run(ctx)
}
