package slackbot

import (
	"context"
	"sync"
)

// pool runs acknowledged work on a fixed number of goroutines, so that the
// event loop never waits for a decision and decisions never starve acks of
// CPU. Its queue is unbounded: the event loop must never block, or the
// Socket Mode client stops reading and misses pings.
type pool struct {
	mu     sync.Mutex
	queue  []job
	closed bool
	signal chan struct{} // closed and replaced when work arrives
	panics func(any)
}

type job func(ctx context.Context)

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
	if p.closed {
		return
	}
	if front {
		p.queue = append([]job{j}, p.queue...)
	} else {
		p.queue = append(p.queue, j)
	}
	close(p.signal)
	p.signal = make(chan struct{})
}

// close stops taking work; workers finish what is queued, then return.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	close(p.signal)
	p.signal = make(chan struct{})
}

// pending counts queued work not yet started.
func (p *pool) pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
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
			return nil, false
		}
		p.mu.Lock()
		if len(p.queue) > 0 {
			j := p.queue[0]
			p.queue[0] = nil
			p.queue = p.queue[1:]
			p.mu.Unlock()
			return j, true
		}
		closed, signal := p.closed, p.signal
		p.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-signal:
		}
	}
}

func (p *pool) do(ctx context.Context, j job) {
	defer func() {
		if r := recover(); r != nil && p.panics != nil {
			p.panics(r)
		}
	}()
	j(ctx)
}
