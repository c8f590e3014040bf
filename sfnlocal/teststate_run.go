package sfnlocal

import (
	"context"
	"math"
	"sort"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// run runs the tested state once, until it is done, the five minutes
// TestState allows run out (States.Timeout), ctx ends or the engine
// closes.
func (r *testRun) run(ctx context.Context) (TestStateOutput, error) {
	x := r.x
	e := x.e
	runCtx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	x.root = newThread(x, runCtx, x.def, r.vars, r.finish)
	timer := e.clock.AfterFunc(testStateTimeout, func() {
		r.settle(func() {
			r.out = TestStateOutput{Status: TestFailed, Error: errTimeout, Cause: "The state did not finish within 5 minutes."}
		})
	})
	defer timer.Stop()
	defer e.executionEnded(x.arn)
	if !e.spawn(func() { x.root.begin(x.input) }) {
		return TestStateOutput{}, apiErrorf(CodeValidationException, "The local engine is closed.")
	}
	select {
	case <-r.done:
	case <-runCtx.Done():
		r.settle(nil)
		if err := ctx.Err(); err != nil {
			return TestStateOutput{}, err
		}
		return TestStateOutput{}, apiErrorf(CodeValidationException, "The local engine is closed.")
	}
	out := r.out
	if r.level != InspectionInfo {
		out.InspectionData = r.insp
	}
	return out, nil
}

// settle ends the run once: set records its outcome (nil: none), the
// root thread and whatever it waits on are stopped, and done is closed.
func (r *testRun) settle(set func()) {
	x := r.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.finished {
		return
	}
	r.finished = true
	if set != nil {
		set()
	}
	x.status = StatusSucceeded // records nothing more
	x.root.abortLocked()
	close(r.done)
}

// finish is the root thread's end: a failure no Catch took, or the end
// after exited or retriable recorded the outcome.
func (r *testRun) finish(out any, serr *stateError) {
	r.settle(func() {
		if r.out.Status != "" {
			return
		}
		if serr != nil {
			r.out = TestStateOutput{Status: TestFailed, Error: serr.Name, Cause: serr.Cause}
			return
		}
		r.out = TestStateOutput{Status: TestSucceeded, Output: jsonvalue.Encode(out), HasOutput: true}
	})
}

// underTest reports whether t is the thread a TestState run tests.
func (t *thread) underTest() *testRun {
	if r := t.x.test; r != nil && t == t.x.root {
		return r
	}
	return nil
}

// exited records the tested state's exit: its output, the state it
// moves to (none at the end) and the variables after it. A state whose
// Catch took an error exits with CAUGHT_ERROR.
func (r *testRun) exited(t *thread, output any, next string) {
	out := TestStateOutput{Status: TestSucceeded, Output: jsonvalue.Encode(output), HasOutput: true, NextState: next}
	if r.caughtErr != nil {
		out.Status, out.Error, out.Cause = TestCaughtError, r.caughtErr.Name, r.caughtErr.Cause
		if r.caughtErr.nullName {
			out.Error = ""
		}
		if r.caughtErr.nullCause {
			out.Cause = ""
		}
	}
	r.out = out
	if r.insp != nil && len(t.vars) > 0 {
		vars := jsonvalue.NewObject(len(t.vars))
		for _, k := range sortedKeys(t.vars) {
			vars.Set(k, t.vars[k])
		}
		r.insp.Variables = jsonvalue.Encode(vars)
	}
}

// caught notes the Catch (by index) that took the error.
func (r *testRun) caught(t *thread, c *catcher, serr *stateError) {
	r.caughtErr = serr
	for i, each := range t.st.catch {
		if each == c && r.insp != nil {
			r.insp.ErrorDetails = &InspectionErrorDetails{CatchIndex: &i}
		}
	}
}

// retriable records that retrier i would retry the error after delay
// seconds: TestState reports RETRIABLE instead of retrying.
func (r *testRun) retriable(serr *stateError, i int, delay float64) {
	r.out = TestStateOutput{Status: TestRetriable, Error: serr.Name, Cause: serr.Cause}
	if r.insp != nil {
		secs := int64(math.Round(delay))
		r.insp.ErrorDetails = &InspectionErrorDetails{RetryIndex: &i, RetryBackoffIntervalSeconds: &secs}
	}
}

// retriesSoFar is how many retries the request says already happened,
// or -1.
func (r *testRun) retriesSoFar() int64 {
	if r == nil {
		return -1
	}
	if c := r.in.StateConfiguration; c != nil && c.RetrierRetryCount != nil {
		return *c.RetrierRetryCount
	}
	return -1
}

// inspect records one step of the tested state's data flow.
func (t *thread) inspect(step string, v any) {
	r := t.underTest()
	if r == nil || r.insp == nil {
		return
	}
	text := jsonvalue.Encode(v)
	d := r.insp
	switch step {
	case "afterInputPath":
		d.AfterInputPath = text
	case "afterParameters":
		d.AfterParameters = text
	case "afterArguments":
		d.AfterArguments = text
	case "result":
		d.Result = text
	case "afterResultSelector":
		d.AfterResultSelector = text
	case "afterResultPath":
		d.AfterResultPath = text
	case "afterItemsPath":
		d.AfterItemsPath = text
	}
}

// mocked answers a Task, Map or Parallel state under test from the
// request's mock; ok is false when the state runs for real.
func (t *thread) mocked() (flow, bool) {
	r := t.underTest()
	if r == nil || r.mock == nil {
		return 0, false
	}
	if e := r.mock.ErrorOutput; e != nil {
		return t.fail(&stateError{Name: e.Error, Cause: e.Cause}), true
	}
	return t.complete(r.mockVal), true
}

// testMap records a tested Map state's concurrency and tolerances, as
// AWS's inspection data shows them, then answers it from the mock.
func (t *thread) testMap() (flow, bool) {
	r := t.underTest()
	if r == nil || r.mock == nil {
		return 0, false
	}
	st := t.st
	in := t.input
	if st.lang != langJSONata {
		var serr *stateError
		if in, serr = t.pathValue(st.inputPath, t.input); serr != nil {
			return t.fail(serr), true
		}
		t.inspect("afterInputPath", in)
	}
	conc, serr := t.mapNumber("MaxConcurrency", st.maxConcurrency, st.maxConcurrencyPath, in, t.maxConcurrencyFromPath)
	if serr != nil {
		return t.fail(serr), true
	}
	if r.insp != nil {
		n := int64(max(conc, 0))
		r.insp.MaxConcurrency = &n
		if st.toleratedCount.set || st.toleratedCountPath != "" {
			c, serr := t.mapNumber("ToleratedFailureCount", st.toleratedCount, st.toleratedCountPath, in, t.toleratedCountFromPath)
			if serr != nil {
				return t.fail(serr), true
			}
			n := int64(c)
			r.insp.ToleratedFailureCount = &n
		}
		if st.toleratedPercent.set || st.toleratedPctPath != "" {
			p, serr := t.mapNumber("ToleratedFailurePercentage", st.toleratedPercent, st.toleratedPctPath, in, t.toleratedPercentFromPath)
			if serr != nil {
				return t.fail(serr), true
			}
			r.insp.ToleratedFailurePercentage = &p
		}
	}
	return t.mocked()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// contextObject is the context object of a TestState run, as AWS records
// it (test_test_state_scenarios): Execution without RedriveCount and with
// a null RoleArn when the request has none, then StateMachine, then
// State; the request's context, when given, is merged over it.
func (r *testRun) contextObject(t *thread, c *jsonvalue.Object) *jsonvalue.Object {
	x := r.x
	var role any
	if x.roleArn != "" {
		role = x.roleArn
	}
	c.Set("Execution", jsonvalue.ObjectOf("Id", x.arn, "Input", x.input, "Name", x.name, "RoleArn", role, "StartTime", isoTime(x.start)))
	c.Set("StateMachine", jsonvalue.ObjectOf("Id", x.m.arn, "Name", x.m.name))
	if t.st != nil {
		state := jsonvalue.ObjectOf("Name", t.st.name, "EnteredTime", isoTime(t.entered))
		if retryable[t.st.typ] {
			state.Set("RetryCount", jsonvalue.Int(int64(t.retryCount)))
		}
		c.Set("State", state)
	}
	if t.token != "" {
		c.Set("Task", jsonvalue.ObjectOf("Token", t.token))
	}
	if r.overlay != nil {
		return merged(c, r.overlay)
	}
	return c
}

// merged is base with over's members laid over it, objects merged
// member by member.
func merged(base, over *jsonvalue.Object) *jsonvalue.Object {
	out := jsonvalue.NewObject(base.Len() + over.Len())
	base.Range(func(k string, v any) bool { out.Set(k, v); return true })
	over.Range(func(k string, v any) bool {
		b, bok := out.Get(k)
		bo, isObj := b.(*jsonvalue.Object)
		oo, overObj := v.(*jsonvalue.Object)
		if bok && isObj && overObj {
			out.Set(k, merged(bo, oo))
		} else {
			out.Set(k, v)
		}
		return true
	})
	return out
}
