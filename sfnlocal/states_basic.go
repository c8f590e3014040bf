package sfnlocal

import (
	"errors"
	"fmt"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/intrinsics"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonata"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

func (t *thread) runPass() flow {
	st := t.st
	if st.lang == langJSONata {
		return t.complete(t.input)
	}
	in, serr := t.pathValue(st.inputPath, t.input)
	if serr != nil {
		return t.fail(serr)
	}
	result := in
	switch {
	case st.result.set:
		result = st.result.value
		t.inspect("result", result)
	case st.parameters.set:
		t.inspect("afterInputPath", in)
		if result, serr = t.template("Parameters", st.parameters.value, in); serr != nil {
			return t.fail(serr)
		}
		t.inspect("afterParameters", result)
	default:
		t.inspect("afterInputPath", in)
		t.inspect("afterParameters", in)
	}
	return t.complete(result)
}

// passThrough is the output of states without a result (Choice, Wait,
// Succeed): InputPath then OutputPath, or JSONata's Output.
func (t *thread) passThrough(output field, assign field) (any, map[string]any, *stateError) {
	st := t.st
	if st.lang == langJSONata {
		vars := t.jsonataVars(t.input, nil, nil)
		assigned, serr := t.assignments(st, assign, nil, vars)
		if serr != nil || !output.set {
			return t.input, assigned, serr
		}
		out, serr := t.jsonataField("Output", output.value, vars)
		return out, assigned, serr
	}
	in, serr := t.pathValue(st.inputPath, t.input)
	if serr != nil {
		return nil, nil, serr
	}
	t.inspect("afterInputPath", in)
	assigned, serr := t.assignments(st, assign, in, nil)
	if serr != nil {
		return nil, nil, serr
	}
	out, serr := t.pathValue(st.outputPath, in)
	return out, assigned, serr
}

func (t *thread) runSucceed() flow {
	out, _, serr := t.passThrough(t.st.output, field{})
	if serr != nil {
		return t.fail(serr)
	}
	return t.exit(out, nil, "")
}

func (t *thread) runFail() flow {
	st := t.st
	if st.lang != langJSONata {
		t.inspect("afterInputPath", t.input)
	}
	serr := &stateError{}
	var ferr *stateError
	if serr.Name, ferr = t.failField("Error", st.errorField, st.errorPath); ferr == nil {
		serr.Cause, ferr = t.failField("Cause", st.causeField, st.causePath)
	}
	if ferr != nil {
		return t.end(nil, ferr)
	}
	return t.end(nil, serr)
}

// failField evaluates a Fail state's Error or Cause (or their Path forms).
func (t *thread) failField(name string, f field, path string) (string, *stateError) {
	var v any
	var serr *stateError
	switch {
	case path != "":
		resolve := t.resolver(t.input)
		var err error
		if intrinsics.IsCall(path) {
			v, err = intrinsics.Eval(path, resolve)
		} else {
			v, err = resolve(path)
		}
		var nm *jsonpath.NoMatchError
		if errors.As(err, &nm) {
			return "", t.runtimef("The JSONPath '%s' specified for the field '%sPath' could not be found in the input '%s'", path, name, jsonvalue.Encode(t.input))
		}
		if err != nil {
			return "", t.evalError(err, t.input)
		}
	case f.set && t.st.lang == langJSONata:
		if v, serr = t.jsonataField(name, f.value, t.jsonataVars(t.input, nil, nil)); serr != nil {
			return "", serr
		}
	default:
		v = f.value
	}
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", t.runtimef("The value of the field '%s' must be a string, not %s", name, jsonvalue.TypeName(v))
	}
	return s, nil
}

func (t *thread) runChoice() flow {
	st := t.st
	var in any = t.input
	var vars jsonata.Vars
	var resolve func(string) (any, error)
	if st.lang == langJSONata {
		vars = t.jsonataVars(t.input, nil, nil)
	} else {
		var serr *stateError
		if in, serr = t.pathValue(st.inputPath, t.input); serr != nil {
			return t.fail(serr)
		}
		resolve = t.resolver(in)
	}
	for i, rule := range st.choices {
		var ok bool
		if st.lang == langJSONata {
			v, serr := t.jsonataField(fmt.Sprintf("Choices[%d]/Condition", i), rule.condition.value, vars)
			if serr != nil {
				return t.fail(serr)
			}
			b, isBool := v.(bool)
			if !isBool {
				return t.fail(&stateError{Name: errQueryEvaluation, Cause: fmt.Sprintf("The Condition of choice %d returned %s, not a boolean", i, jsonvalue.TypeName(v))})
			}
			ok = b
		} else {
			var err error
			if ok, err = rule.matchJSONPath(resolve); err != nil {
				if serr, isState := err.(*stateError); isState {
					serr.Cause = t.runtimef("%s", serr.Cause).Cause
					return t.fail(serr)
				}
				return t.fail(t.evalError(err, in))
			}
		}
		if ok {
			return t.choose(rule.next, rule.output, rule.assign)
		}
	}
	if st.defaultNext != "" {
		return t.choose(st.defaultNext, field{}, field{})
	}
	return t.fail(&stateError{Name: errNoChoiceMatched, Cause: "No Matches!"})
}

func (t *thread) choose(next string, output, assign field) flow {
	if !output.set {
		output = t.st.output
	}
	if !assign.set {
		assign = t.st.assign
	}
	out, assigned, serr := t.passThrough(output, assign)
	if serr != nil {
		return t.fail(serr)
	}
	return t.exit(out, assigned, next)
}

func (t *thread) runWait() flow {
	st := t.st
	until, serr := t.waitUntil()
	if serr != nil {
		return t.fail(serr)
	}
	out, assigned, serr := t.passThrough(st.output, st.assign)
	if serr != nil {
		return t.fail(serr)
	}
	next := t.nextOf(st)
	x := t.x
	d := until.Sub(x.e.clock.Now())
	if d <= 0 || t.underTest() != nil { // TestState does not wait
		return t.exit(out, assigned, next)
	}
	if d <= 0 {
		return t.exit(out, assigned, next)
	}
	w := &waitOp{t: t}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !t.suspendLocked(w) {
		return flowEnd
	}
	w.timer = x.e.clock.AfterFunc(d, func() {
		x.mu.Lock()
		ok := t.claimLocked(w)
		x.mu.Unlock()
		if ok {
			t.resume(func() flow { return t.exit(out, assigned, next) })
		}
	})
	return flowSuspend
}

// waitUntil computes when a Wait state ends. Its errors are AWS's:
// States.Runtime for the JSONPath fields, States.QueryEvaluationError for
// the JSONata ones.
func (t *thread) waitUntil() (time.Time, *stateError) {
	st := t.st
	now := t.x.e.clock.Now()
	switch {
	case st.lang == langJSONata && st.seconds.set:
		v, serr := t.jsonataField("Seconds", st.seconds.value, t.jsonataVars(t.input, nil, nil))
		if serr != nil {
			return now, serr
		}
		_, serr = t.waitSeconds("Seconds", jsonataText(st.seconds.value), v, errQueryEvaluation)
		if serr != nil {
			serr.evaluation, serr.checkedValue = &EvaluationFailedEventDetails{Error: serr.Name, Cause: serr.Cause, Location: "Seconds"}, true
			return now, serr
		}
		return t.waitSeconds("Seconds", jsonataText(st.seconds.value), v, errQueryEvaluation)
	case st.lang == langJSONata && st.timestamp.set:
		v, serr := t.jsonataField("Timestamp", st.timestamp.value, t.jsonataVars(t.input, nil, nil))
		if serr != nil {
			return now, serr
		}
		ts, ok := timestamp(v)
		if !ok {
			serr := t.evaluationFailed(errQueryEvaluation, "The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time format string: "+pathValueText(v), "Timestamp")
			serr.checkedValue = true
			return now, serr
		}
		return ts, nil
	case st.seconds.set:
		return t.waitSeconds("Seconds", "", st.seconds.value, errRuntime)
	case st.timestamp.set:
		return t.waitTimestamp("Timestamp", "", st.timestamp.value, errRuntime)
	}
	in, serr := t.pathValue(st.inputPath, t.input)
	if serr != nil {
		return now, serr
	}
	field, path := "SecondsPath", st.secondsPath
	if path == "" {
		field, path = "TimestampPath", st.timestampPath
	}
	v, err := t.resolver(in)(path)
	if err != nil {
		return now, t.runtimef("The %s parameter does not reference an input value: %s", field, path)
	}
	if field == "SecondsPath" {
		return t.waitSeconds(field, path, v, errRuntime)
	}
	return t.waitTimestamp(field, path, v, errRuntime)
}

// waitSeconds checks a number of seconds to wait, read by field from
// source (a path or an expression).
func (t *thread) waitSeconds(field, source string, v any, name string) (time.Time, *stateError) {
	now := t.x.e.clock.Now()
	n, ok := integer(v)
	if _, isBool := v.(bool); isBool {
		ok = false
	}
	switch {
	case !ok:
		return now, &stateError{Name: name, Cause: t.located(fmt.Sprintf("The %s parameter cannot be parsed as a long value: %s == %s", field, source, pathValueText(v)))}
	case n < 0:
		return now, &stateError{Name: name, Cause: t.located(fmt.Sprintf("The %s parameter references a negative value: %s == %d", field, source, n))}
	}
	return now.Add(seconds(float64(n))), nil
}

// waitTimestamp checks a timestamp to wait until, read by field from
// source.
func (t *thread) waitTimestamp(field, source string, v any, name string) (time.Time, *stateError) {
	ts, ok := timestamp(v)
	if !ok {
		return t.x.e.clock.Now(), &stateError{Name: name, Cause: t.located(fmt.Sprintf("The %s parameter does not reference a valid ISO-8601 extended offset date-time format string: %s == %s", field, source, pathValueText(v)))}
	}
	return ts, nil
}

// waitOp is a Wait state's timer.
type waitOp struct {
	t     *thread
	timer Timer
}

func (w *waitOp) abortLocked() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.t.recordAbortLocked(StateAborted("Wait"), nil)
}
