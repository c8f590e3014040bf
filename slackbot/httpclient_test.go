package slackbot

import (
	"testing"
	"time"
)

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

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
