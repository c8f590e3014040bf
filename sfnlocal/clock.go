package sfnlocal

import (
	"math"
	"time"
)

// Clock is the engine's source of time: Wait states, retry intervals, task
// timeouts, heartbeats and the execution time limit all run on it, so tests
// can drive them with a FakeClock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine (or, for a FakeClock, in the
	// goroutine that advances the clock) once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not happened yet and reports
	// whether it did so.
	Stop() bool
}

// RealClock returns the wall clock.
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// seconds converts a count of seconds from a definition or an input to a
// Duration, saturating where the count is beyond what a Duration holds
// (about 292 years, past any execution's time limit) rather than wrapping
// round to a wait that ends at once.
func seconds(s float64) time.Duration {
	const most = float64(math.MaxInt64 / int64(time.Second))
	switch {
	case math.IsNaN(s) || s <= 0:
		return 0
	case s >= most:
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}
