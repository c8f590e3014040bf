package sfnlocal

import (
	"math"
	"math/rand/v2"
	"time"
)

// matches reports whether an ErrorEquals list matches an error, with
// AWS's wildcards: States.ALL matches every catchable error,
// States.TaskFailed every one but States.Timeout, and
// States.HeartbeatTimeout only a missed heartbeat.
func matches(errorEquals []string, serr *stateError) bool {
	if serr.terminal() {
		return false
	}
	for _, name := range errorEquals {
		switch {
		case name == errALL:
			return true
		case name == errTaskFailed && serr.Name != errTimeout:
			return true
		case name == errHeartbeatTimeout && serr.heartbeat:
			return true
		case name == serr.Name && !serr.nullName:
			return true
		}
	}
	return false
}

// retryDelay is the wait before retry number n (from 0) of a retrier.
func (r *retrier) delay(n int64) time.Duration {
	d := r.interval * math.Pow(r.backoff, float64(n))
	if r.maxDelay > 0 && d > r.maxDelay {
		d = r.maxDelay
	}
	if r.jitterFull {
		d *= rand.Float64()
	}
	return seconds(d)
}

// retry applies the first retrier that matches the error, if it has
// attempts left; ok is false when the error must go on to Catch.
func (t *thread) retry(serr *stateError) (flow, bool) {
	for i, r := range t.st.retry {
		if !matches(r.errorEquals, serr) {
			continue
		}
		test := t.underTest()
		if t.retries == nil {
			t.retries = make([]int64, len(t.st.retry))
			if n := test.retriesSoFar(); n > 0 {
				t.retries[i], t.retryCount = n, int(n)
			}
		}
		if t.retries[i] >= r.maxAttempts {
			return 0, false
		}
		d := r.delay(t.retries[i])
		if test != nil {
			test.retriable(serr, i, d.Seconds())
			return t.end(nil, nil), true
		}
		t.retries[i]++
		t.retryCount++
		if d <= 0 {
			return flowRetry, true
		}
		w := &retryWait{t: t}
		x := t.x
		x.mu.Lock()
		defer x.mu.Unlock()
		if !t.suspendLocked(w) {
			return flowEnd, true
		}
		w.timer = x.e.clock.AfterFunc(d, func() {
			x.mu.Lock()
			ok := t.claimLocked(w)
			x.mu.Unlock()
			if ok {
				t.resume(func() flow { return flowRetry })
			}
		})
		return flowSuspend, true
	}
	return 0, false
}

// retryWait is a state waiting for its next attempt.
type retryWait struct {
	t     *thread
	timer Timer
}

func (w *retryWait) abortLocked() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.t.recordAbortLocked(StateAborted(w.t.st.typ), nil)
}
