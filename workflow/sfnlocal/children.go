package sfnlocal

// group runs the child threads of a Parallel or Map state and resumes the
// state when they have all succeeded, or when one failure fails it. Its
// fields are guarded by x.mu.
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
}

// startLocked suspends the parent on the group and starts the first
// children.
func (g *group) startLocked() bool {
	if !g.t.suspendLocked(g) {
		return false
	}
	g.results = make([]any, len(g.inputs))
	g.running = make(map[int]*thread)
	if len(g.inputs) == 0 {
		g.succeedLocked()
		return true
	}
	g.launchLocked()
	return true
}

func (g *group) launchLocked() {
	x := g.t.x
	for g.next < len(g.inputs) && (g.maxConc <= 0 || len(g.running) < g.maxConc) {
		i := g.next
		g.next++
		child := newThread(x, g.defs(i), g.vars, nil)
		child.silent = g.t.silent || g.distributed
		child.lastID = g.t.lastID
		child.done = func(out any, serr *stateError) { g.childDone(i, child, out, serr) }
		g.running[i] = child
		if g.isMap {
			child.recordLocked(EventMapIterationStarted, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		input := g.inputs[i]
		x.e.spawn(func() { child.begin(input) })
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
	if serr != nil {
		if g.isMap {
			child.recordLocked(EventMapIterationFailed, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		if !g.distributed {
			g.failLocked(serr)
			return
		}
		g.failures++
		g.results[i] = serr.output()
		if g.exceedsToleranceLocked() {
			g.failLocked(&stateError{Name: errExceedTolerated, Cause: "The specified tolerated failure threshold was exceeded"})
			return
		}
	} else {
		if g.isMap {
			child.recordLocked(EventMapIterationSucceeded, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
		g.results[i] = out
	}
	g.finished++
	if g.finished == len(g.inputs) {
		g.succeedLocked()
		return
	}
	g.launchLocked()
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

// abortChildrenLocked stops the running children.
func (g *group) abortChildrenLocked() {
	for i, c := range g.running {
		c.abortLocked()
		if g.isMap {
			c.recordLocked(EventMapIterationAborted, &MapIterationEventDetails{Name: g.t.st.name, Index: i})
		}
	}
	g.running = nil
}

func (g *group) syncParentLocked() {
	g.t.lastID = int64(len(g.t.x.events))
}

func (g *group) succeedLocked() {
	g.settled = true
	t := g.t
	if !t.claimLocked(g) {
		return
	}
	g.syncParentLocked()
	if g.isMap {
		if g.distributed {
			t.recordLocked(EventMapRunSucceeded, nil)
		}
		t.recordLocked(EventMapStateSucceeded, nil)
	} else {
		t.recordLocked(EventParallelStateSucceeded, nil)
	}
	results := g.results
	t.resume(func() flow { return t.complete(results) })
}

func (g *group) failLocked(serr *stateError) {
	g.settled = true
	g.abortChildrenLocked()
	t := g.t
	if !t.claimLocked(g) {
		return
	}
	g.syncParentLocked()
	if g.isMap {
		if g.distributed {
			t.recordLocked(EventMapRunFailed, &MapRunEventDetails{Error: serr.Name, Cause: serr.Cause})
		}
		t.recordLocked(EventMapStateFailed, nil)
	} else {
		t.recordLocked(EventParallelStateFailed, nil)
	}
	t.resume(func() flow { return t.fail(serr) })
}

func (g *group) abortLocked() {
	g.settled = true
	g.abortChildrenLocked()
	g.syncParentLocked()
	if g.isMap {
		g.t.recordLocked(StateAborted("Map"), nil)
	} else {
		g.t.recordLocked(StateAborted("Parallel"), nil)
	}
}
