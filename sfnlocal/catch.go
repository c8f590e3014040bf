package sfnlocal

// findCatcher returns the first catcher that matches the error.
func findCatcher(catchers []*catcher, serr *stateError) *catcher {
	for _, c := range catchers {
		if matches(c.errorEquals, serr) {
			return c
		}
	}
	return nil
}

// caught routes an error to a catcher: the error output goes through the
// catcher's ResultPath (JSONPath) or Output (JSONata), its Assign runs,
// and the state exits to the catcher's Next.
func (t *thread) caught(c *catcher, serr *stateError) flow {
	if r := t.underTest(); r != nil {
		r.caught(t, c, serr)
	}
	var errOut any = serr.output()
	var out any
	var assigned map[string]any
	var ferr *stateError
	if t.st.lang == langJSONata {
		vars := t.jsonataVars(t.input, nil, &errOut)
		if assigned, ferr = t.assignments(t.st, c.assign, nil, vars); ferr == nil {
			out = errOut
			if c.output.set {
				out, ferr = t.jsonataField("Output", c.output.value, vars)
			}
		}
	} else {
		if assigned, ferr = t.assignments(t.st, c.assign, errOut, nil); ferr == nil {
			out, ferr = t.resultPath(c.resultPath, t.input, errOut)
		}
	}
	if ferr != nil {
		t.recordEvaluation(ferr)
		return t.end(nil, ferr)
	}
	return t.exit(out, assigned, c.next)
}
