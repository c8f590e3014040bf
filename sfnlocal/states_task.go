package sfnlocal

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// taskRun is one attempt of a Task state, from TaskScheduled until it
// succeeds, fails, times out or is aborted. Fields are guarded by x.mu.
type taskRun struct {
	t       *thread
	token   string
	lambda  bool
	resType string
	resName string
	cancel  context.CancelFunc
	timeout Timer
	beat    Timer
	beatDur time.Duration
	// timeoutAt and beatAt are when the timers fall due (UnixNano); seq
	// orders the attempts of an execution whose timers fall due together.
	timeoutAt int64
	beatAt    int64
	seq       uint64
	beatOut   bool // the attempt timed out for want of a heartbeat
	settled   bool
	closed    bool // the token no longer accepts SendTask*
	submitted bool
	early     func() // a callback outcome that arrived before TaskSubmitted
}

const waitForTaskToken = ".waitForTaskToken"

// resourceParts splits an integration ARN into the resourceType and
// resource that task events record, e.g. "lambda" and "invoke".
func resourceParts(arn string) (string, string) {
	parts := strings.Split(arn, ":")
	if len(parts) < 7 || parts[2] != "states" {
		return "", arn
	}
	rest := parts[5:]
	return strings.Join(rest[:len(rest)-1], ":"), rest[len(rest)-1]
}

func isLambdaFunction(arn string) bool {
	return strings.HasPrefix(arn, "arn:aws:lambda:") || strings.HasPrefix(arn, "arn:aws-cn:lambda:") || strings.HasPrefix(arn, "arn:aws-us-gov:lambda:")
}

func (t *thread) runTask() flow {
	st, x := t.st, t.x
	e := x.e
	callback := strings.HasSuffix(st.resource, waitForTaskToken)
	t.token = ""
	if callback {
		t.token = e.tokens.mint()
	}
	params, serr := t.effectiveInput(st)
	if serr != nil {
		return t.fail(serr)
	}
	timeout, heartbeat, serr := t.taskTimeouts()
	if serr != nil {
		return t.fail(serr)
	}
	var creds any
	if st.credentials.set {
		if st.lang == langJSONata {
			creds, serr = t.jsonataField("Credentials", st.credentials.value, t.jsonataVars(t.input, nil, nil))
		} else {
			creds, serr = t.template("Credentials", st.credentials.value, t.input)
		}
		if serr != nil {
			return t.fail(serr)
		}
	}

	if f, ok := t.mocked(); ok {
		return f
	}
	run := &taskRun{t: t, token: t.token, lambda: isLambdaFunction(st.resource)}
	run.resType, run.resName = resourceParts(st.resource)
	paramText := jsonvalue.Encode(params)
	var tos, hbs *int64
	if timeout > 0 {
		tos = &timeout
	}
	if heartbeat > 0 {
		hbs = &heartbeat
	}
	if run.lambda {
		t.record(EventLambdaScheduled, &LambdaFunctionScheduledEventDetails{Resource: st.resource, Input: paramText, InputDetails: notTruncated, TimeoutInSeconds: tos})
	} else {
		t.record(EventTaskScheduled, &TaskScheduledEventDetails{ResourceType: run.resType, Resource: run.resName, Region: e.region,
			Parameters: paramText, TimeoutInSeconds: tos, HeartbeatInSeconds: hbs})
	}

	call := task.Call{Resource: st.resource, Parameters: []byte(paramText), StateMachineARN: x.m.arn, ExecutionARN: x.arn,
		StateName: st.name, TaskToken: t.token, Attempt: t.retryCount, TestCase: x.testCase}
	if creds != nil {
		call.Credentials = rawJSON(creds)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	run.cancel = cancel

	x.mu.Lock()
	l := t.launch
	if !t.suspendLocked(run) {
		x.mu.Unlock()
		cancel()
		return flowEnd
	}
	x.mu.Unlock()
	start := func() { run.start(ctx, call, callback, timeout, heartbeat) }
	if l != nil {
		l.addStart(start)
	} else {
		start()
	}
	return flowSuspend
}

// start records TaskStarted, arms the attempt's timers and calls the
// integration, unless the attempt was aborted since TaskScheduled.
func (r *taskRun) start(ctx context.Context, call task.Call, callback bool, timeout, heartbeat int64) {
	t := r.t
	x := t.x
	e := x.e
	x.mu.Lock()
	if r.settled {
		x.mu.Unlock()
		return
	}
	if r.lambda {
		t.recordLocked(EventLambdaStarted, nil)
	} else {
		t.recordLocked(EventTaskStarted, &TaskEventDetails{ResourceType: r.resType, Resource: r.resName})
	}
	now := e.clock.Now()
	if timeout > 0 {
		call.Deadline = now.Add(seconds(float64(timeout)))
	}
	if callback {
		e.tokens.open.Store(r.token, r)
	}
	if timeout > 0 {
		r.timeoutAt = now.Add(seconds(float64(timeout))).UnixNano()
		r.timeout = e.clock.AfterFunc(seconds(float64(timeout)), func() { r.expired(false) })
	}
	if heartbeat > 0 {
		r.beatDur = seconds(float64(heartbeat))
		r.armBeatLocked()
	}
	x.armLocked(r)
	x.mu.Unlock()

	integ := e.integrationFor(call.Resource)
	if isSync(call.Resource) {
		call.Submitted = r.submitJob
	}
	e.spawn(func() {
		if integ == nil {
			r.invoked(nil, &task.Failure{Name: errRuntime, Cause: "No integration runs the resource " + call.Resource})
			return
		}
		out, err := integ.Invoke(ctx, call)
		r.invoked(out, err)
	})
}

// armBeatLocked (re)starts the HeartbeatSeconds timer.
func (r *taskRun) armBeatLocked() {
	e := r.t.x.e
	r.beatAt = e.clock.Now().Add(r.beatDur).UnixNano()
	r.beat = e.clock.AfterFunc(r.beatDur, func() { r.expired(true) })
}

// taskTimeouts evaluates TimeoutSeconds[Path] and HeartbeatSeconds[Path];
// 0 means none (AWS's default of 99999999 s outlasts the execution).
func (t *thread) taskTimeouts() (timeout, heartbeat int64, serr *stateError) {
	eval := func(name string, f field, path string) (int64, *stateError) {
		var v any
		switch {
		case path != "":
			in, serr := t.pathValue(t.st.inputPath, t.input)
			if serr != nil {
				return 0, serr
			}
			var err error
			if v, err = t.resolver(in)(path); err != nil {
				return 0, t.runtimef("Invalid path '%s' : No results for path: %s", path, path)
			}
		case f.set && t.st.lang == langJSONata:
			if v, serr = t.jsonataField(name, f.value, t.jsonataVars(t.input, nil, nil)); serr != nil {
				return 0, serr
			}
		case f.set:
			v = f.value
		default:
			return 0, nil
		}
		n, ok := integer(v)
		if !ok || n <= 0 {
			return 0, t.runtimef("The %s value %s is not a positive integer", name, jsonvalue.Encode(v))
		}
		return n, nil
	}
	if timeout, serr = eval("TimeoutSeconds", t.st.timeoutSeconds, t.st.timeoutSecondsPath); serr != nil {
		return 0, 0, serr
	}
	heartbeat, serr = eval("HeartbeatSeconds", t.st.heartbeatSeconds, t.st.heartbeatSecondsPath)
	return timeout, heartbeat, serr
}

// invoked takes the integration's answer.
func (r *taskRun) invoked(out []byte, err error) {
	x := r.t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.settled {
		return
	}
	if err != nil {
		var f *task.Failure
		serr := &stateError{Name: errRuntime, Cause: err.Error()}
		if errors.As(err, &f) {
			serr = &stateError{Name: f.Name, Cause: f.Cause}
		} else {
			x.e.log.Info("task integration error", zap.String("execution_arn", x.arn), zap.String("state", r.t.st.name), zap.Error(err))
		}
		r.failLocked(serr)
		return
	}
	if len(out) == 0 {
		out = []byte("null")
	}
	result, derr := decodeJSON(out)
	if derr != nil {
		r.failLocked(&stateError{Name: errRuntime, Cause: "The integration returned invalid JSON: " + derr.Error()})
		return
	}
	text, serr := r.resultText(result)
	if serr != nil {
		r.failLocked(serr)
		return
	}
	if r.token == "" {
		r.succeedLocked(result, text)
		return
	}
	r.submitted = true
	r.t.recordLocked(EventTaskSubmitted, &TaskOutputEventDetails{ResourceType: r.resType, Resource: r.resName, Output: text, OutputDetails: notTruncated})
	if r.early != nil {
		r.early()
	}
}

func (r *taskRun) succeedLocked(result any, text string) {
	if r.lambda {
		r.t.recordLocked(EventLambdaSucceeded, &ExecutionSucceededEventDetails{Output: text, OutputDetails: notTruncated})
	} else {
		r.t.recordLocked(EventTaskSucceeded, &TaskOutputEventDetails{ResourceType: r.resType, Resource: r.resName, Output: text, OutputDetails: notTruncated})
	}
	r.settleLocked(func() flow { return r.t.complete(result) })
}

func (r *taskRun) failLocked(serr *stateError) {
	if r.lambda {
		r.t.recordLocked(EventLambdaFailed, &ErrorEventDetails{Error: serr.Name, Cause: serr.Cause})
	} else {
		r.t.recordLocked(EventTaskFailed, &TaskErrorEventDetails{ResourceType: r.resType, Resource: r.resName, Error: serr.Name, Cause: serr.Cause})
	}
	r.settleLocked(func() flow { return r.t.fail(serr) })
}

// timeOutLocked records that TimeoutSeconds or HeartbeatSeconds ran out
// (both States.Timeout) and ends the attempt; the state handles the error
// once the thread claims it (handleTimeout), or records TaskStateAborted
// if it is aborted first.
func (r *taskRun) timeOutLocked(heartbeat bool) {
	r.beatOut = heartbeat
	if r.lambda {
		r.t.recordLocked(EventLambdaTimedOut, &ErrorEventDetails{Error: errTimeout})
	} else {
		r.t.recordLocked(EventTaskTimedOut, &TaskErrorEventDetails{ResourceType: r.resType, Resource: r.resName, Error: errTimeout})
	}
	r.releaseLocked()
}

// handleTimeout hands a recorded timeout to the state's Retry and Catch,
// in the calling goroutine.
func (r *taskRun) handleTimeout() {
	x := r.t.x
	x.mu.Lock()
	ok := r.t.claimLocked(r)
	x.mu.Unlock()
	if ok {
		serr := &stateError{Name: errTimeout, heartbeat: r.beatOut}
		r.t.proceed(func() flow { return r.t.fail(serr) })
	}
}

// settleLocked ends the attempt and resumes the thread with step.
func (r *taskRun) settleLocked(step func() flow) {
	if !r.t.claimLocked(r) {
		r.releaseLocked()
		return
	}
	r.releaseLocked()
	r.t.resume(step)
}

// releaseLocked closes the token and stops the attempt's timers and call.
func (r *taskRun) releaseLocked() {
	r.settled = true
	r.t.x.disarmLocked(r)
	r.closeTokenLocked()
	if r.timeout != nil {
		r.timeout.Stop()
	}
	if r.beat != nil {
		r.beat.Stop()
	}
	r.cancel()
}

func (r *taskRun) closeTokenLocked() {
	if !r.closed && r.token != "" {
		r.closed = true
		r.t.x.e.tokens.open.Delete(r.token)
	}
}

func (r *taskRun) abortLocked() {
	r.releaseLocked()
	r.t.recordAbortLocked(StateAborted("Task"), nil)
}
