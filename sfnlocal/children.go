package sfnlocal

import "sort"

// group runs the child threads of a Parallel or Map state and resumes the
// state when they have all succeeded, or when one failure fails it. Its
// fields are guarded by x.mu.
//
// previousEventId follows the histories AWS records: a child launched as
// the state starts follows <Type>StateStarted, one launched when another
// finished follows that child's last state event, and MapIterationStarted,
// MapIterationSucceeded and MapIterationFailed follow their iteration's
// last state event. On success the state's next event follows the last
// child event (for a Map, the last MapIterationSucceeded). On failure
// every event follows the failing child's last state event: its
// MapIterationFailed, TaskStateAborted if it failed in a Task state, each
// other running child's MapIterationAborted and <Type>StateAborted, then
// <Type>StateFailed (AWS's recording of four Map iterations timing out
// together, testdata/conformance/map_iterations_timeout.json).
type group struct {
	t           *thread
	isMap       bool
	distributed bool
	defs        func(i int) *definition
	inputs      []any
	vars        map[string]any
	maxConc     int
	tolCount    int64 // -1: not set
	tolPercent  float64
	results     []any
	running     map[int]*thread
	next        int
	finished    int
	failures    int
	settled     bool
	chain       int64 // the event the next launched child follows
	// export keeps what a distributed Map's ResultWriter writes (nil
	// without one).
	export *resultExport
}

// startLocked suspends the parent on the group and starts the first
// children.
func (g *group) startLocked() bool {
	l := g.t.launch
	if !g.t.suspendLocked(g) {
		return false
	}
	g.results = make([]any, len(g.inputs))
	g.running = make(map[int]*thread)
	g.chain = g.t.lastID
	if len(g.inputs) == 0 {
		g.succeedLocked(g.chain)
		return true
	}
	g.launchLocked(l)
	return true
}

// launchLocked starts children up to MaxConcurrency, in the launch l that
// runs the calling goroutine, or in a new one when l is nil.
func (g *group) launchLocked(l *launch) {
	x := g.t.x
	fresh := l == nil
	if fresh {
		l = &launch{e: x.e}
	}
	added := false
	for !g.settled && g.next < len(g.inputs) && (g.maxConc <= 0 || len(g.running) < g.maxConc) {
		i := g.next
		g.next++
		child := newThread(x, g.t.ctx, g.defs(i), g.vars, nil)
		child.silent, child.sub = g.t.silent, g.t.sub
		if g.distributed {
			child.silent, child.sub = true, newChildHistory()
		}
		child.lastID = g.chain
		child.done = func(out any, serr *stateError) { g.childDone(i, child, out, serr) }
		g.running[i] = child
		if g.export != nil {
			g.export.startedLocked(i)
		}
		if g.isMap && !g.distributed {
			child.recordLocked(EventMapIterationStarted, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		input := g.inputs[i]
		child.launch = l
		l.addBegin(func() { child.begin(input) })
		added = true
	}
	if fresh && added {
		l.run()
	}
}

func (g *group) childDone(i int, child *thread, out any, serr *stateError) {
	x := g.t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if g.settled {
		return
	}
	delete(g.running, i)
	last := child.lastID
	if g.export != nil {
		g.export.doneLocked(i, out, serr)
	}
	if serr != nil {
		if g.isMap {
			child.recordLocked(EventMapIterationFailed, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		if !g.distributed {
			if child.st.typ == "Task" {
				child.lastID = last
				child.recordLocked(StateAborted("Task"), nil)
			}
			g.failLocked(serr, last)
			return
		}
		g.failures++
		g.results[i] = serr.output()
		if g.exceedsToleranceLocked() {
			g.failLocked(&stateError{Name: errExceedTolerated, Cause: "The specified tolerated failure threshold was exceeded"}, last)
			return
		}
	} else {
		if g.isMap {
			child.recordLocked(EventMapIterationSucceeded, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		g.results[i] = out
	}
	g.chain = last
	g.finished++
	if g.finished == len(g.inputs) {
		g.succeedLocked(child.lastID)
		return
	}
	g.launchLocked(child.launch)
}

// exceedsToleranceLocked applies ToleratedFailureCount and
// ToleratedFailurePercentage: exceeding either fails the Map Run; with
// neither, any failure does.
func (g *group) exceedsToleranceLocked() bool {
	if g.tolCount < 0 && g.tolPercent < 0 {
		return g.failures > 0
	}
	if g.tolCount >= 0 && int64(g.failures) > g.tolCount {
		return true
	}
	return g.tolPercent >= 0 && float64(g.failures)*100/float64(len(g.inputs)) > g.tolPercent
}

// abortChildrenLocked stops the running children, in index order: a Map
// iteration records MapIterationAborted, then its running state
// <Type>StateAborted, all following the event prev.
func (g *group) abortChildrenLocked(prev int64) {
	idx := make([]int, 0, len(g.running))
	for i := range g.running {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		c := g.running[i]
		if g.isMap {
			c.lastID = prev
			c.recordAbortLocked(EventMapIterationAborted, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		c.lastID = prev
		c.abortLocked()
	}
	g.running = nil
}

// succeedLocked resumes the state with the children's results; end is
// the last child event. <Type>StateSucceeded does not move the chain: the
// state's exit follows end too.
func (g *group) succeedLocked(end int64) {
	g.settled = true
	t := g.t
	if !t.claimLocked(g) {
		return
	}
	t.lastID = end
	if ex := g.export; ex != nil {
		t.resume(func() flow { return ex.succeeded(t, end) })
		return
	}
	if g.isMap {
		if g.distributed {
			t.recordLocked(EventMapRunSucceeded, nil)
		}
		t.noteLocked(EventMapStateSucceeded, nil)
	} else {
		t.noteLocked(EventParallelStateSucceeded, nil)
	}
	results := g.results
	t.resume(func() flow { return t.complete(results) })
}

// failLocked aborts the other children and hands the error to the state's
// Retry and Catch; last is the failing child's last state event.
func (g *group) failLocked(serr *stateError, last int64) {
	g.settled = true
	g.abortChildrenLocked(last)
	t := g.t
	if !t.claimLocked(g) {
		return
	}
	t.lastID = last
	if g.isMap {
		if g.distributed {
			t.recordLocked(EventMapRunFailed, &MapRunEventDetails{Error: serr.Name, Cause: serr.Cause})
		}
		t.failEvent = EventMapStateFailed
	} else {
		t.failEvent = EventParallelStateFailed
	}
	if ex := g.export; ex != nil {
		t.resume(func() flow { return ex.failed(t, serr) })
		return
	}
	t.resume(func() flow { return t.fail(serr) })
}

// abortLocked stops the group because its state was stopped from above.
func (g *group) abortLocked() {
	g.settled = true
	g.abortChildrenLocked(g.t.lastID)
	if g.isMap {
		g.t.recordAbortLocked(StateAborted("Map"), nil)
	} else {
		g.t.recordAbortLocked(StateAborted("Parallel"), nil)
	}
}
