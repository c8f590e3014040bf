package validate

// statesAll is the error name that matches every error.
const statesAll = "States.ALL"

// retry checks a state's retriers.
func (c *checker) retry(s *state) {
	arr, loc, ok := c.array(s, "Retry")
	if !ok {
		return
	}
	for i, e := range arr {
		rloc := index(loc, i)
		r, ok := e.(map[string]any)
		if !ok {
			c.expectType(rloc, e, "OBJECT")
			continue
		}
		c.unsupported(r, rloc, retrierFields)
		c.required(r, rloc, "ErrorEquals")
		c.errorEquals(r, rloc, i == len(arr)-1)
		checks := []struct {
			field string
			b     bounds
		}{
			{"IntervalSeconds", intRange(0, 99999999)}, // 0 is accepted (measured)
			{"MaxAttempts", intRange(0, 99999999)},
			{"BackoffRate", atLeast(1, false)},
			{"MaxDelaySeconds", intRange(1, 31622400)},
		}
		for _, ck := range checks {
			if v, ok := r[ck.field]; ok {
				c.number(child(rloc, ck.field), v, ck.b, jsonPath)
			}
		}
		if v, ok := r["JitterStrategy"]; ok {
			c.enum(child(rloc, "JitterStrategy"), v, "NONE", "FULL")
		}
	}
}

// catch checks a state's catchers and records their transitions.
func (c *checker) catch(s *state) {
	arr, loc, ok := c.array(s, "Catch")
	if !ok {
		return
	}
	for i, e := range arr {
		cloc := index(loc, i)
		r, ok := e.(map[string]any)
		if !ok {
			c.expectType(cloc, e, "OBJECT")
			continue
		}
		c.unsupported(r, cloc, catcherFields)
		if s.ql == jsonPath && has(r, "Output") {
			c.wrongLanguage(cloc, "Output", s.ql)
		}
		if s.ql == jsonata && has(r, "ResultPath") {
			c.wrongLanguage(cloc, "ResultPath", s.ql)
		}
		c.required(r, cloc, "ErrorEquals", "Next")
		c.errorEquals(r, cloc, i == len(arr)-1)
		if v, ok := r["ResultPath"]; ok && v != nil && s.ql == jsonPath {
			c.path(child(cloc, "ResultPath"), "ResultPath", v, resultPath)
		}
		if v, ok := r["Output"]; ok && s.ql == jsonata {
			c.jsonataValues(child(cloc, "Output"), v, true)
		}
		if v, ok := r["Assign"]; ok {
			c.assign(child(cloc, "Assign"), v, s.ql, true)
		}
		if v, ok := r["Next"]; ok {
			c.transition(s, child(cloc, "Next"), v)
		}
	}
}

// array returns a state's Retry or Catch list, reporting a non-array.
func (c *checker) array(s *state, field string) ([]any, string, bool) {
	v, ok := s.obj[field]
	if !ok || !stateFields[s.typ][field] {
		return nil, "", false
	}
	loc := child(s.loc, field)
	if !c.expectType(loc, v, "ARRAY") {
		return nil, "", false
	}
	return v.([]any), loc, true
}

// errorEquals checks a retrier's or catcher's error names: a non-empty list
// of strings where States.ALL stands alone in the last entry.
func (c *checker) errorEquals(r map[string]any, loc string, last bool) {
	v, ok := r["ErrorEquals"]
	if !ok {
		return
	}
	loc = child(loc, "ErrorEquals")
	if !c.expectType(loc, v, "ARRAY") {
		return
	}
	names := v.([]any)
	if len(names) == 0 {
		c.schema(loc, "Value cannot be empty")
		return
	}
	all := false
	for i, n := range names {
		if c.expectType(index(loc, i), n, "STRING") && n == statesAll {
			all = true
		}
	}
	if all && (len(names) > 1 || !last) {
		c.schema(loc, "States.ALL must appear alone and at end of list")
	}
}
