package sfnlocal

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const approvalDef = `{"StartAt":"Approve","States":{
	"Approve":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"FunctionName":"notifier","Payload":{"token.$":"$$.Task.Token","request.$":"$"}},
		"ResultPath":"$.decision",%s
		"Catch":[{"ErrorEquals":["Rejected"],"ResultPath":"$.rejection","Next":"Rejected"}],
		"Next":"Done"},
	"Rejected":{"Type":"Pass","End":true},
	"Done":{"Type":"Succeed"}}}`

func approval(extra string) string { return strings.Replace(approvalDef, "%s", extra, 1) }

func TestApprovalSucceeds(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(approval("")), `{"id":"r1"}`)
	call := calls.next(t)
	if len(call.TaskToken) < 64 || !strings.Contains(string(call.Parameters), call.TaskToken) {
		t.Fatalf("token %q not passed in parameters %s", call.TaskToken, call.Parameters)
	}
	if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{"approved":true}`}); err != nil {
		t.Fatal(err)
	}
	x := h.wait(arn)
	jsonEqual(t, succeeded(t, x), `{"id":"r1","decision":{"approved":true}}`)

	want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted",
		"TaskSucceeded", "TaskStateExited", "SucceedStateEntered", "SucceedStateExited", "ExecutionSucceeded"}
	events := h.events(arn)
	var got []string
	for _, ev := range events {
		got = append(got, ev.Type)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("history = %v\nwant      %v", got, want)
	}
	sched := events[2].Details.(*TaskScheduledEventDetails)
	if sched.ResourceType != "lambda" || sched.Resource != "invoke.waitForTaskToken" || sched.Region != "us-east-1" {
		t.Errorf("TaskScheduled = %+v", sched)
	}
	if sub := events[4].Details.(*TaskOutputEventDetails); sub.Output != `{"StatusCode":200}` {
		t.Errorf("TaskSubmitted output = %s", sub.Output)
	}
	if done := events[5].Details.(*TaskOutputEventDetails); done.Output != `{"approved":true}` {
		t.Errorf("TaskSucceeded output = %s", done.Output)
	}
	for i, ev := range events {
		if ev.ID != int64(i+1) {
			t.Errorf("event %d has id %d", i, ev.ID)
		}
	}
	if events[1].PreviousEventID != 0 || events[2].PreviousEventID != 2 {
		t.Errorf("previousEventId chain: %d, %d", events[1].PreviousEventID, events[2].PreviousEventID)
	}

	err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`})
	if ErrorCode(err) != CodeTaskTimedOut || !strings.Contains(err.Error(), "Provided task does not exist anymore") {
		t.Errorf("second SendTaskSuccess = %v, want TaskTimedOut", err)
	}
}

func TestApprovalRejectedIsCaught(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(approval("")), `{"id":"r1"}`)
	call := calls.next(t)
	if err := h.e.SendTaskFailure(ctx(t), SendTaskFailureInput{TaskToken: call.TaskToken, Error: "Rejected", Cause: "no budget"}); err != nil {
		t.Fatal(err)
	}
	x := h.wait(arn)
	jsonEqual(t, succeeded(t, x), `{"id":"r1","rejection":{"Error":"Rejected","Cause":"no budget"}}`)
	got := h.types(arn)
	want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted",
		"TaskFailed", "TaskStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"}
	if !slices.Equal(got, want) {
		t.Fatalf("history = %v\nwant      %v", got, want)
	}
}

func TestSendTaskErrors(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	h.start(h.create(approval("")), `{}`)
	call := calls.next(t)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"malformed token", h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: "nope", Output: `{}`}), CodeInvalidToken},
		{"forged token", h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken[:len(call.TaskToken)-4] + "AAAA", Output: `{}`}), CodeInvalidToken},
		{"empty token", h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{}), CodeValidationException},
		{"bare word output", h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `approved`}), CodeInvalidOutput},
		{"token from another engine", New(Options{}).SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`}), CodeInvalidToken},
	}
	for _, tt := range tests {
		if got := ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: got %v, want %s", tt.name, tt.err, tt.want)
		}
	}
	// The bad output did not close the token.
	if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: call.TaskToken}); err != nil {
		t.Errorf("heartbeat on open token: %v", err)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, catch, wantNext string
	}{
		{"caught by HeartbeatTimeout", `"States.HeartbeatTimeout"`, "Beat"},
		{"caught by Timeout", `"States.Timeout"`, "Beat"},
		{"not caught by TaskFailed", `"States.TaskFailed"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := newTokenCatcher()
			h := newHarness(t, calls)
			def := `{"StartAt":"T","States":{
				"T":{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage.waitForTaskToken","HeartbeatSeconds":10,"TimeoutSeconds":100,
					"Catch":[{"ErrorEquals":[` + tt.catch + `],"Next":"Beat"}],"End":true},
				"Beat":{"Type":"Pass","End":true}}}`
			arn := h.start(h.create(def), `{}`)
			call := calls.next(t)
			h.advance(3, 9*time.Second) // execution limit, timeout, heartbeat
			if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: call.TaskToken}); err != nil {
				t.Fatal(err)
			}
			h.clock.Advance(9 * time.Second) // 18 s in, but 9 s since the heartbeat
			if x, _ := h.e.DescribeExecution(ctx(t), arn); x.Status != StatusRunning {
				t.Fatalf("heartbeat did not reset the timer: %s", x.Status)
			}
			h.clock.Advance(time.Second)
			x := h.wait(arn)
			events := h.events(arn)
			var timedOut *TaskErrorEventDetails
			for _, ev := range events {
				if ev.Type == EventTaskTimedOut {
					timedOut = ev.Details.(*TaskErrorEventDetails)
				}
				if ev.Type == "TaskHeartbeat" {
					t.Error("heartbeat recorded an event")
				}
			}
			if timedOut == nil || timedOut.Error != errTimeout {
				t.Fatalf("TaskTimedOut = %+v, want error States.Timeout", timedOut)
			}
			if tt.wantNext == "" {
				if x.Status != StatusFailed || x.Error != errTimeout {
					t.Fatalf("got %s %s", x.Status, x.Error)
				}
				return
			}
			jsonEqual(t, succeeded(t, x), `{"Error":"States.Timeout","Cause":""}`)
			if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`}); ErrorCode(err) != CodeTaskTimedOut {
				t.Errorf("success after heartbeat timeout = %v, want TaskTimedOut", err)
			}
		})
	}
}

func TestTaskTimeoutNotExtendedByHeartbeats(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","TimeoutSeconds":20,"HeartbeatSeconds":15,"End":true}}}`), `{}`)
	call := calls.next(t)
	h.advance(3, 10*time.Second)
	if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: call.TaskToken}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(10 * time.Second)
	x := h.wait(arn)
	if x.Status != StatusFailed || x.Error != errTimeout {
		t.Fatalf("got %s %s, want FAILED States.Timeout", x.Status, x.Error)
	}
	sched := h.events(arn)[2].Details.(*TaskScheduledEventDetails)
	if *sched.TimeoutInSeconds != 20 || *sched.HeartbeatInSeconds != 15 {
		t.Errorf("TaskScheduled = %+v", sched)
	}
}

func TestNoTimeoutWaitsForExecutionLimit(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(approval("")), `{}`)
	calls.next(t)
	h.advance(1, 364*24*time.Hour)
	if x, _ := h.e.DescribeExecution(ctx(t), arn); x.Status != StatusRunning {
		t.Fatalf("status after 364 days = %s", x.Status)
	}
	h.clock.Advance(24 * time.Hour)
	x := h.wait(arn)
	if x.Status != StatusTimedOut || x.Error != errTimeout {
		t.Fatalf("got %s %s, want TIMED_OUT", x.Status, x.Error)
	}
}

func TestStopExecutionClosesTokens(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(approval(`"HeartbeatSeconds":60,`)), `{}`)
	call := calls.next(t)
	h.waitForEvent(arn, "TaskSubmitted") // the invoke answered: the task waits for its token
	if _, err := h.e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: arn, Error: "Cancelled", Cause: "by user"}); err != nil {
		t.Fatal(err)
	}
	x := h.wait(arn)
	if x.Status != StatusAborted {
		t.Fatalf("status = %s", x.Status)
	}
	for _, send := range []error{
		h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`}),
		h.e.SendTaskFailure(ctx(t), SendTaskFailureInput{TaskToken: call.TaskToken}),
		h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: call.TaskToken}),
	} {
		if ErrorCode(send) != CodeTaskTimedOut {
			t.Errorf("after stop: %v, want TaskTimedOut", send)
		}
	}
	got := h.types(arn)
	want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskStateAborted", "ExecutionAborted"}
	if !slices.Equal(got, want) {
		t.Errorf("history = %v\nwant      %v", got, want)
	}
	if n := h.clock.Pending(); n != 0 {
		t.Errorf("%d timers left pending", n)
	}
}

func TestFreshTokenPerRetryAttempt(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	def := `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"t.$":"$$.Task.Token","retry.$":"$$.State.RetryCount"},
		"Retry":[{"ErrorEquals":["Flaky"],"IntervalSeconds":2}],"End":true}}}`
	arn := h.start(h.create(def), `{}`)
	first := calls.next(t)
	if err := h.e.SendTaskFailure(ctx(t), SendTaskFailureInput{TaskToken: first.TaskToken, Error: "Flaky"}); err != nil {
		t.Fatal(err)
	}
	h.advance(2, 2*time.Second)
	second := calls.next(t)
	if second.TaskToken == first.TaskToken || second.Attempt != 1 || !strings.Contains(string(second.Parameters), `"retry":1`) {
		t.Fatalf("retry call = %+v", second)
	}
	if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: first.TaskToken, Output: `{}`}); ErrorCode(err) != CodeTaskTimedOut {
		t.Errorf("old token: %v", err)
	}
	if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: second.TaskToken, Output: `"ok"`}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, succeeded(t, h.wait(arn)), `"ok"`)
}

func TestSuccessBeforeInvokeReturns(t *testing.T) {
	var h *harness
	sent := make(chan error, 1)
	integ := funcIntegration(func(_ contextCtx, call taskCall) (rawMsg, error) {
		sent <- h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{"fast":true}`})
		return rawMsg(`{"submitted":true}`), nil
	})
	h = newHarness(t, integ)
	x := h.run(approval(""), `{}`)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, succeeded(t, x), `{"decision":{"fast":true}}`)
	got := h.types(x.ExecutionArn)[4:6]
	if !slices.Equal(got, []string{"TaskSubmitted", "TaskSucceeded"}) {
		t.Errorf("events = %v", got)
	}
}

func TestInvokeFailureFailsCallbackTaskAtOnce(t *testing.T) {
	integ := funcIntegration(func(contextCtx, taskCall) (rawMsg, error) {
		return nil, &taskFailure{Name: "Lambda.ServiceException", Cause: "down"}
	})
	h := newHarness(t, integ)
	x := h.run(approval(""), `{}`)
	if x.Status != StatusFailed || x.Error != "Lambda.ServiceException" {
		t.Fatalf("got %s %s", x.Status, x.Error)
	}
}

func TestExpressRejectsCallbacks(t *testing.T) {
	h := newHarness(t)
	_, err := h.e.CreateStateMachine(ctx(t), CreateStateMachineInput{Name: "x", Definition: approval(""), Type: Express})
	if ErrorCode(err) != CodeInvalidDefinition || !strings.Contains(err.Error(), "waitForTaskToken") {
		t.Fatalf("got %v, want InvalidDefinition", err)
	}

	syncJob := `{"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync:2","End":true}}}`
	_, err = h.e.CreateStateMachine(ctx(t), CreateStateMachineInput{Name: "y", Definition: syncJob, Type: Express})
	want := "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Express state machine does not support '.sync' service integration at /States/Run/Resource'"
	if ErrorCode(err) != CodeInvalidDefinition || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("got %v, want InvalidDefinition %q", err, want)
	}

	sm, err := h.e.CreateStateMachine(ctx(t), CreateStateMachineInput{Name: "z", Definition: passDef, Type: Express})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.e.UpdateStateMachine(ctx(t), UpdateStateMachineInput{StateMachineArn: sm.StateMachineArn, Definition: approval("")})
	if ErrorCode(err) != CodeInvalidDefinition || !strings.Contains(err.Error(), "waitForTaskToken") {
		t.Fatalf("update: got %v, want InvalidDefinition", err)
	}
}
