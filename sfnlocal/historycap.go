package sfnlocal

import "sync/atomic"

// maxHistoryEvents is AWS's cap on an execution's history: an execution
// that needs more events fails, its ExecutionFailed being event 25,000.
// Map iterations and Parallel branches count: they share the history.
const maxHistoryEvents = 25000

// historyFullCause is the cause AWS records when the cap ends an
// execution, with the error States.Runtime.
const historyFullCause = "The execution reached the maximum number of history events (25000)."

func historyFullError() *stateError {
	return &stateError{Name: errRuntime, Cause: historyFullCause}
}

// roomLocked reports whether the history can take one more event of a
// running execution. When it cannot, the execution fails at once: the
// event is dropped and ExecutionFailed takes the last place, following
// the last event recorded. A stop, timeout or close already under way
// keeps that place for its own end event instead.
func (x *execution) roomLocked() bool {
	if len(x.events) < maxHistoryEvents-1 || x.status != StatusRunning {
		return true
	}
	if x.ending {
		return false
	}
	x.ending = true
	serr := historyFullError()
	x.status, x.errName, x.cause = StatusFailed, serr.Name, serr.Cause
	x.appendLocked(EventExecutionFailed, int64(len(x.events)), &ErrorEventDetails{Error: serr.Name, Cause: serr.Cause})
	x.closeLocked()
	// The threads are stopped outside the call that hit the cap: it may be
	// in the middle of walking them. Until then they record nothing, since
	// the execution no longer runs.
	if !x.e.spawn(x.stopThreads) {
		go x.stopThreads()
	}
	return false
}

// stopThreads aborts whatever still runs of an execution that ended
// without its threads' consent, closing its task tokens and timers, then
// releases the execution.
func (x *execution) stopThreads() {
	x.mu.Lock()
	x.root.abortLocked()
	x.mu.Unlock()
	x.released()
}

// childHistory counts the events of a distributed Map child run. The
// engine runs it as a silent thread of the parent execution, but on AWS it
// is an execution of its own, held to its own cap: once the count is full
// the run fails with the cap's error.
type childHistory struct {
	n    int // guarded by x.mu
	full atomic.Bool
}

// newChildHistory returns the count of a run that has recorded its
// ExecutionStarted.
func newChildHistory() *childHistory { return &childHistory{n: 1} }

// addLocked counts one event, or marks the history full when the event
// would not leave room for the run's ExecutionFailed.
func (h *childHistory) addLocked() {
	if h.n >= maxHistoryEvents-1 {
		h.full.Store(true)
		return
	}
	h.n++
}
