package slackbot

import (
	"context"
	"sync"
	"time"
)

// Rate is a request budget: Events per Per on average, up to Burst at once.
type Rate struct {
	Events int
	Per    time.Duration
	Burst  int
}

func (r Rate) perSecond() float64 {
	if r.Events <= 0 || r.Per <= 0 {
		return 1
	}
	return float64(r.Events) / r.Per.Seconds()
}

// limiter is a token bucket shared by everybody calling one Slack method.
// Pause stops it for everyone, which is how one 429 delays every queued
// call instead of each call discovering the limit on its own.
type limiter struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time // when tokens was last brought up to date
	paused time.Time // no token before this instant
	now    func() time.Time
}

func newLimiter(r Rate) *limiter {
	burst := float64(max(r.Burst, 1))
	return &limiter{rate: r.perSecond(), burst: burst, tokens: burst, now: time.Now}
}

// Wait blocks until a call may be made or ctx is done.
func (l *limiter) Wait(ctx context.Context) error {
	for {
		wait := l.take()
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// take takes a token, or says how long to wait before trying again.
func (l *limiter) take() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Before(l.paused) {
		return l.paused.Sub(now)
	}
	l.refill(now)
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
}

func (l *limiter) refill(now time.Time) {
	if now.After(l.last) {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
	}
}

// Pause stops every caller for d (Slack's Retry-After); afterwards calls
// resume at the steady rate, without a burst.
func (l *limiter) Pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	until := l.now().Add(d)
	if until.After(l.paused) {
		l.paused = until
	}
	l.tokens, l.last = 0, l.paused
}

// currentRate is the calls per second the limiter allows now: its steady
// rate, or 0 while a Pause lasts.
func (l *limiter) currentRate() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.now().Before(l.paused) {
		return 0
	}
	return l.rate
}

// idle reports whether the limiter is full and not paused, so forgetting it
// changes nothing.
func (l *limiter) idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.refill(now)
	return !now.Before(l.paused) && l.tokens >= l.burst
}

// keyedLimiter keeps one limiter per key, such as per channel.
type keyedLimiter struct {
	mu   sync.Mutex
	rate Rate
	m    map[string]*limiter
}

func newKeyedLimiter(r Rate) *keyedLimiter {
	return &keyedLimiter{rate: r, m: map[string]*limiter{}}
}

func (k *keyedLimiter) get(key string) *limiter {
	k.mu.Lock()
	defer k.mu.Unlock()
	if l, ok := k.m[key]; ok {
		return l
	}
	if len(k.m) >= 256 {
		for key, l := range k.m {
			if l.idle() {
				delete(k.m, key)
			}
		}
	}
	l := newLimiter(k.rate)
	k.m[key] = l
	return l
}
