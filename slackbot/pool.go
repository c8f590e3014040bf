package slackbot

import (
	"context"
	"sync"
)

// pool runs acknowledged work on a fixed number of goroutines, so that the
// event loop never waits for a decision and decisions never starve acks of
// CPU. Its queue is unbounded: the event loop must never block, or the
// Socket Mode client stops reading and misses pings. Work is never lost
// silently: what the workers did not finish when their context ended is
// handed back by leftovers.
type pool struct {
	mu          sync.Mutex
	queue       []job
	interrupted []job // started, and still running when the context ended
	closed      bool
	signal      chan struct{} // closed and replaced when work arrives
	panics      func(any)
}

// job is acknowledged work: run does it; abandon, if not nil, tells the
// person it was not done (started: it was cut short, so it may have been).
type job struct {
	run     func(ctx context.Context)
	abandon func(ctx context.Context, started bool)
}

func newPool(panics func(any)) *pool {
	return &pool{signal: make(chan struct{}), panics: panics}
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
	close(p.signal)
	p.signal = make(chan struct{})
}

// close lets the workers return once the queue is empty.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	close(p.signal)
	p.signal = make(chan struct{})
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

// run starts n workers and returns a channel closed when all have
// returned: after close once the queue is empty, or when ctx is done.
func (p *pool) run(ctx context.Context, n int) <-chan struct{} {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				j, ok := p.next(ctx)
				if !ok {
					return
				}
				p.do(ctx, j)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

func (p *pool) next(ctx context.Context) (job, bool) {
	for {
		if ctx.Err() != nil {
			return job{}, false
		}
		p.mu.Lock()
		if len(p.queue) > 0 {
			j := p.queue[0]
			p.queue[0] = job{}
			p.queue = p.queue[1:]
			p.mu.Unlock()
			return j, true
		}
		closed, signal := p.closed, p.signal
		p.mu.Unlock()
		if closed {
			return job{}, false
		}
		select {
		case <-ctx.Done():
			return job{}, false
		case <-signal:
		}
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
