package sfnlocal

import (
	"context"
	"sort"
	"sync"
	"time"
)

// FakeClock is a Clock that only moves when told to. Advance fires due
// timers in order of their due time, synchronously, in the caller's
// goroutine. It is safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	timers  []*fakeTimer
	changed chan struct{}
}

type fakeTimer struct {
	c   *FakeClock
	due time.Time
	seq uint64
	f   func()
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run when the clock has advanced by d. A
// non-positive d runs f at once in a new goroutine, as time.AfterFunc does.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, due: c.now.Add(d), f: f}
	if d <= 0 {
		go f()
		return t
	}
	c.seq++
	t.seq = c.seq
	c.timers = append(c.timers, t)
	close(c.changed)
	c.changed = make(chan struct{})
	return t
}

func (t *fakeTimer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.timers {
		if x == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Advance moves the clock forward by d, firing every timer that falls due,
// earliest first; while a timer's function runs, Now reads its due time.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	for {
		sort.Slice(c.timers, func(i, j int) bool {
			a, b := c.timers[i], c.timers[j]
			if !a.due.Equal(b.due) {
				return a.due.Before(b.due)
			}
			return a.seq < b.seq
		})
		if len(c.timers) == 0 || c.timers[0].due.After(target) {
			break
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		if t.due.After(c.now) {
			c.now = t.due
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	if target.After(c.now) {
		c.now = target
	}
	c.mu.Unlock()
}

// Pending returns the number of timers waiting to fire.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil waits until at least n timers are pending, so a test can
// advance the clock once the engine is waiting on it. It returns ctx's
// error if ctx ends first.
func (c *FakeClock) BlockUntil(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		ok, ch := len(c.timers) >= n, c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
