package sfnlocal

func (t *thread) runParallel() flow {
	st := t.st
	in, serr := t.effectiveInput(st)
	if serr != nil {
		return t.fail(serr)
	}
	if f, ok := t.mocked(); ok {
		return f
	}
	inputs := make([]any, len(st.branches))
	for i := range inputs {
		inputs[i] = in
	}
	g := &group{t: t, defs: func(i int) *definition { return st.branches[i] }, inputs: inputs, vars: t.vars, tolCount: -1, tolPercent: -1}
	x := t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	t.recordLocked(EventParallelStateStarted, nil)
	if !g.startLocked() {
		return flowEnd
	}
	return flowSuspend
}
