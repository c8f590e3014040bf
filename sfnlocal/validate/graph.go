package validate

// transitions checks a scope's graph: every target exists, the top-level
// machine can end, and every state is reachable from StartAt.
func (c *checker) transitions(sc *scope, top bool) {
	for _, t := range sc.targets {
		if _, ok := sc.states[t.name]; !ok {
			// AWS says 'Next' whatever field named the target.
			c.add(SeverityError, CodeMissingTransitionTarget, t.loc, "Missing 'Next' target: %s", t.name)
		}
	}
	if sc.untyped {
		return // the graph is not known well enough to judge
	}
	if top && !sc.terminal {
		// Measured: this replaces the reachability report, and applies to
		// the top level only (a nested loop is accepted).
		c.add(SeverityError, CodeMissingEndState, "", "Workflow has no terminal state")
		return
	}
	reached := map[string]bool{}
	queue := []string{sc.startAt}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if reached[name] {
			continue
		}
		if _, ok := sc.states[name]; !ok {
			continue
		}
		reached[name] = true
		queue = append(queue, sc.edges[name]...)
	}
	for _, name := range sortedKeys(sc.states) {
		if !reached[name] {
			c.add(SeverityError, CodeMissingTransitionTarget, child(child(sc.loc, "States"), name),
				"State \"%s\" is not reachable.", name)
		}
	}
}
