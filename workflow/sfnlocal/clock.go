package sfnlocal

import "time"

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
