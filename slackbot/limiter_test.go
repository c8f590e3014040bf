package slackbot

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestLimiter(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newLimiter(Rate{Events: 2, Per: time.Second, Burst: 3})
	l.now = clock.now
	l.last = clock.t

	for i := range 3 {
		if d := l.take(); d != 0 {
			t.Fatalf("burst call %d waits %s", i, d)
		}
	}
	if d := l.take(); d != 500*time.Millisecond {
		t.Errorf("after the burst: wait %s, want 500ms", d)
	}
	clock.advance(500 * time.Millisecond)
	if d := l.take(); d != 0 {
		t.Errorf("after refilling one token: wait %s", d)
	}

	l.Pause(7 * time.Second)
	clock.advance(time.Second)
	if d := l.take(); d != 6*time.Second {
		t.Errorf("while paused: wait %s, want 6s", d)
	}
	clock.advance(6 * time.Second)
	if d := l.take(); d != 500*time.Millisecond {
		t.Errorf("right after the pause: wait %s, want the steady rate (500ms), no burst", d)
	}
	clock.advance(time.Minute)
	if !l.idle() {
		t.Error("a refilled limiter is not idle")
	}
}

func TestOpenLimiterBacksOff(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := &openLimiter{openBackoff: openBackoff{Base: time.Second, Max: 30 * time.Second, Reset: time.Minute}, now: clock.now}
	var got []time.Duration
	for range 8 {
		d := l.reserve()
		got = append(got, d)
		clock.advance(d) // the open happens, the server drops it at once
	}
	want := []time.Duration{0, 1, 2, 4, 8, 16, 30, 30}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("delays = %v, want %v seconds", got, want)
		}
	}
	clock.advance(2 * time.Minute) // a connection that lived
	if d := l.reserve(); d != 0 {
		t.Errorf("after a long-lived connection: delay %s, want 0", d)
	}
	if d := l.reserve(); d != time.Second {
		t.Errorf("then a quick drop: delay %s, want 1s", d)
	}
}

func TestBackoff(t *testing.T) {
	for attempt := 1; attempt < 30; attempt++ {
		d := backoff(time.Second, time.Minute, attempt)
		if d < 500*time.Millisecond || d > 90*time.Second {
			t.Errorf("backoff(attempt %d) = %s, outside [0.5s, 1.5min]", attempt, d)
		}
	}
}

func TestLimiterCurrentRate(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newLimiter(Rate{Events: 50, Per: time.Minute, Burst: 20})
	l.now = clock.now
	if got, want := l.currentRate(), 50.0/60; got != want {
		t.Errorf("rate = %v, want %v", got, want)
	}
	l.Pause(2 * time.Second)
	if got := l.currentRate(); got != 0 {
		t.Errorf("rate while paused = %v, want 0", got)
	}
	clock.advance(2 * time.Second)
	if got, want := l.currentRate(), 50.0/60; got != want {
		t.Errorf("rate after the pause = %v, want %v", got, want)
	}
}
