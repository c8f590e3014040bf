package sfnlocal

import "sort"

// expired runs when an attempt's TimeoutSeconds or HeartbeatSeconds timer
// fires. Every attempt of the execution whose timer falls due at that
// same instant times out with it: each records TaskTimedOut, in the order
// their timers were armed, before any state handles its timeout; then the
// states handle theirs one after another, so that a Map the first one
// fails aborts the others, which record TaskStateAborted. That is what AWS
// recorded for four Map iterations timing out together
// (testdata/conformance/map_iterations_timeout.json).
func (r *taskRun) expired(heartbeat bool) {
	x := r.t.x
	x.mu.Lock()
	if r.settled {
		x.mu.Unlock()
		return
	}
	due := r.timeoutAt
	if heartbeat {
		due = r.beatAt
	}
	batch := x.dueLocked(due)
	for _, b := range batch {
		b.timeOutLocked(b.timeout == nil || b.timeoutAt != due)
	}
	x.mu.Unlock()
	x.e.spawn(func() {
		for _, b := range batch {
			b.handleTimeout()
		}
	})
}

// armLocked registers an attempt whose timers are armed.
func (x *execution) armLocked(r *taskRun) {
	if r.timeout == nil && r.beat == nil {
		return
	}
	if x.armed == nil {
		x.armed = map[*taskRun]struct{}{}
	}
	x.armSeq++
	r.seq = x.armSeq
	x.armed[r] = struct{}{}
}

func (x *execution) disarmLocked(r *taskRun) {
	delete(x.armed, r)
}

// dueLocked returns the open attempts with a timer due at due, in the
// order they were armed.
func (x *execution) dueLocked(due int64) []*taskRun {
	var out []*taskRun
	for r := range x.armed {
		if !r.settled && (r.timeout != nil && r.timeoutAt == due || r.beat != nil && r.beatAt == due) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}
