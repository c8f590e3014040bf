package sfnlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// bigString is a JSON string literal whose text is n bytes, quotes
// included.
func bigString(n int) string { return `"` + strings.Repeat("a", n-2) + `"` }

// A Pass state whose output passes 256 KiB fails the execution at once,
// as AWS recorded it (localstack tests/aws/services/stepfunctions/v2/
// error_handling/test_states_errors.snapshot.json, test_start_large_input):
// PassStateEntered, then ExecutionFailed following it, no PassStateExited.
func TestDataLimitOnStateOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	def := `{"StartAt":"State_1","States":{"State_1":{"Type":"Pass","Result":{"Arg1":` + bigString(257*1024) + `},"End":true}}}`
	arn := h.start(h.create(def), `{}`)
	x := h.wait(arn)
	wantCause := "The state/task 'State_1' returned a result with a size exceeding the maximum number of bytes service limit."
	if x.Status != StatusFailed || x.Error != errDataLimitExceeded || x.Cause != wantCause {
		t.Errorf("execution %s %s (%s), want FAILED %s (%s)", x.Status, x.Error, x.Cause, errDataLimitExceeded, wantCause)
	}
	events := h.events(arn)
	if got, want := h.types(arn), []string{EventExecutionStarted, StateEntered("Pass"), EventExecutionFailed}; !slices.Equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	if last := events[2]; last.PreviousEventID != 2 {
		t.Errorf("ExecutionFailed follows event %d, want 2", last.PreviousEventID)
	}
}

// The quota is 262,144 bytes of JSON text: exactly that passes, one more
// byte fails.
func TestDataLimitBoundary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		size       int
		wantStatus string
	}{
		{"at the quota", maxPayload, StatusSucceeded},
		{"one byte past", maxPayload + 1, StatusFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			x := h.run(`{"StartAt":"P","States":{"P":{"Type":"Pass","Result":`+bigString(tt.size)+`,"End":true}}}`, `{}`)
			if x.Status != tt.wantStatus {
				t.Errorf("status %s (%s), want %s", x.Status, x.Error, tt.wantStatus)
			}
		})
	}
}

// A task whose result passes the quota fails with States.DataLimitExceeded,
// naming the integration's resource type or the Lambda function, and,
// unlike a state's output, Catch takes it, States.ALL included: AWS-recorded
// in the same localstack snapshot (test_service_task_lambada_… and
// test_task_lambda_…_data_limit_exceeded_on_large_utf8_response).
func TestDataLimitOnTaskResult(t *testing.T) {
	t.Parallel()
	const fn = "arn:aws:lambda:us-east-1:123456789012:function:big"
	tests := []struct {
		name, resource, wantFailed, wantWho, wantHandler string
	}{
		{"integration, caught by name", "arn:aws:states:::lambda:invoke", EventTaskFailed, "lambda", "HandleDataLimitExceeded"},
		{"integration, caught by States.ALL", "arn:aws:states:::lambda:invoke", EventTaskFailed, "lambda", "HandleGeneralError"},
		{"Lambda function, caught by name", fn, EventLambdaFailed, fn, "HandleDataLimitExceeded"},
		{"Lambda function, caught by States.ALL", fn, EventLambdaFailed, fn, "HandleGeneralError"},
	}
	big := json.RawMessage(bigString(257 * 1024))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, funcIntegration(func(contextCtx, taskCall) (rawMsg, error) { return big, nil }))
			// The recorded machines: one catches the error by name before
			// States.ALL, the other has States.ALL only.
			catch, handlers := `{"ErrorEquals":["States.ALL"],"Next":"HandleGeneralError"}`, `"HandleGeneralError":{"Type":"Pass","End":true}`
			if tt.wantHandler == "HandleDataLimitExceeded" {
				catch = `{"ErrorEquals":["States.DataLimitExceeded"],"Next":"HandleDataLimitExceeded"},` + catch
				handlers = `"HandleDataLimitExceeded":{"Type":"Pass","End":true},` + handlers
			}
			def := fmt.Sprintf(`{"StartAt":"InvokeLambda","States":{
				"InvokeLambda":{"Type":"Task","Resource":%q,"Parameters":{"FunctionName":"big"},"Next":"ProcessResult","Catch":[%s]},
				"ProcessResult":{"Type":"Pass","End":true},%s}}`, tt.resource, catch, handlers)
			arn := h.start(h.create(def), `{}`)
			out := succeeded(t, h.wait(arn))
			cause := fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", tt.wantWho)
			jsonEqual(t, out, fmt.Sprintf(`{"Error":%q,"Cause":%q}`, errDataLimitExceeded, cause))
			events := h.events(arn)
			var failed *HistoryEvent
			for i := range events {
				if events[i].Type == tt.wantFailed {
					failed = &events[i]
				}
			}
			if failed == nil {
				t.Fatalf("no %s in %v", tt.wantFailed, h.types(arn))
			}
			var gotErr, gotCause string
			switch d := failed.Details.(type) {
			case *TaskErrorEventDetails:
				gotErr, gotCause = d.Error, d.Cause
			case *ErrorEventDetails:
				gotErr, gotCause = d.Error, d.Cause
			}
			if gotErr != errDataLimitExceeded || gotCause != cause {
				t.Errorf("%s records %s (%s), want %s (%s)", tt.wantFailed, gotErr, gotCause, errDataLimitExceeded, cause)
			}
			scheduled, started := EventTaskScheduled, EventTaskStarted
			if tt.wantFailed == EventLambdaFailed {
				scheduled, started = EventLambdaScheduled, EventLambdaStarted
			}
			want := []string{EventExecutionStarted, StateEntered("Task"), scheduled, started, tt.wantFailed, StateExited("Task"),
				StateEntered("Pass"), StateExited("Pass"), EventExecutionSucceeded}
			if got := h.types(arn); !slices.Equal(got, want) {
				t.Errorf("history %v, want %v", got, want)
			}
			if d, _ := events[6].Details.(*StateEnteredEventDetails); d == nil || d.Name != tt.wantHandler {
				t.Errorf("event 7 enters %+v, want %s", events[6].Details, tt.wantHandler)
			}
		})
	}
}

// A state's input after Parameters or Arguments, and the variables one
// state assigns, are held to the quota too; a state's own error is
// terminal, so States.ALL does not catch it.
func TestDataLimitOnInputAndVariables(t *testing.T) {
	t.Parallel()
	big := bigString(200 * 1024)
	tests := []struct{ name, def string }{
		{"Parameters", `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
			"Parameters":{"a.$":"$.big","b.$":"$.big"},"Catch":[{"ErrorEquals":["States.ALL"],"Next":"S"}],"End":true},"S":{"Type":"Succeed"}}}`},
		{"Arguments", `{"QueryLanguage":"JSONata","StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
			"Arguments":"{% [$states.input.big, $states.input.big] %}","Catch":[{"ErrorEquals":["States.ALL"],"Next":"S"}],"End":true},"S":{"Type":"Succeed"}}}`},
		{"Parallel Parameters", `{"StartAt":"P","States":{"P":{"Type":"Parallel","Parameters":{"a.$":"$.big","b.$":"$.big"},
			"Branches":[{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}],"Catch":[{"ErrorEquals":["States.ALL"],"Next":"S"}],"End":true},"S":{"Type":"Succeed"}}}`},
		{"Assign", `{"StartAt":"P","States":{"P":{"Type":"Pass","Assign":{"a.$":"$.big","b.$":"$.big"},"End":true}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, funcIntegration(func(contextCtx, taskCall) (rawMsg, error) { return rawMsg(`{}`), nil }))
			x := h.run(tt.def, `{"big":`+big+`}`)
			if x.Status != StatusFailed || x.Error != errDataLimitExceeded {
				t.Errorf("execution %s %s (%s), want FAILED %s", x.Status, x.Error, x.Cause, errDataLimitExceeded)
			}
		})
	}
}

// A loop that doubles its data ends at the quota instead of eating the
// machine's memory.
func TestDataLimitEndsGrowingLoops(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, def string }{
		{"JSONPath", `{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"a.$":"$","b.$":"$"},"Next":"C"},
			"C":{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"P"}],"Default":"D"},"D":{"Type":"Succeed"}}}`},
		{"JSONata", `{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% [$states.input, $states.input] %}","Next":"C"},
			"C":{"Type":"Choice","Choices":[{"Condition":"{% true %}","Next":"P"}],"Default":"D"},"D":{"Type":"Succeed"}}}`},
		{"variables", `{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Assign":{"v":"{% $exists($v) ? {'a': $v, 'b': $v} : 1 %}"},"Next":"C"},
			"C":{"Type":"Choice","Choices":[{"Condition":"{% true %}","Next":"P"}],"Default":"D"},"D":{"Type":"Succeed"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newRunawayHarness(t)
			x := h.run(tt.def, `{"a":1}`)
			if x.Status != StatusFailed || x.Error != errDataLimitExceeded {
				t.Errorf("execution %s %s (%s), want FAILED %s", x.Status, x.Error, x.Cause, errDataLimitExceeded)
			}
		})
	}
}

// A loop passing one large value on records its text once: every event
// shares it, so 25,000 events of a 200 KiB input cost 200 KiB, not 5 GB.
func TestHistorySharesUnchangedPayloads(t *testing.T) {
	t.Parallel()
	h := newRunawayHarness(t)
	arn := h.start(h.create(`{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"C"},
		"C":{"Type":"Choice","Choices":[{"Variable":"$.big","IsPresent":true,"Next":"L"}],"Default":"D"},"D":{"Type":"Succeed"}}}`),
		`{"big":`+bigString(200*1024)+`}`)
	wantHistoryFull(t, h, arn, "")
	texts := map[*byte]bool{}
	for _, ev := range h.allEvents(arn) {
		switch d := ev.Details.(type) {
		case *StateEnteredEventDetails:
			texts[unsafe.StringData(d.Input)] = true
		case *StateExitedEventDetails:
			texts[unsafe.StringData(d.Output)] = true
		}
	}
	if len(texts) > 2 { // the execution's input, and its first encoding
		t.Errorf("the history holds %d copies of the payload, want at most 2", len(texts))
	}
}

func TestSecondsSaturate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want time.Duration
	}{
		{1, time.Second},
		{0.5, 500 * time.Millisecond},
		{0, 0},
		{-3, 0},
		{math.NaN(), 0},
		{1e11, math.MaxInt64},
		{math.Inf(1), math.MaxInt64},
	}
	for _, tt := range tests {
		if got := seconds(tt.in); got != tt.want {
			t.Errorf("seconds(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Seconds beyond what a Duration holds wait (until the execution's time
// limit), instead of wrapping round to no wait at all.
func TestHugeWaitsDoNotWrap(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, def string }{
		{"Wait SecondsPath", `{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$.s","End":true}}}`},
		{"Task TimeoutSecondsPath", `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","TimeoutSecondsPath":"$.s","End":true}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, newTokenCatcher())
			arn := h.start(h.create(tt.def), `{"s":9223372037}`) // 2^63 ns is 9,223,372,036.85 s
			h.advance(2, 24*time.Hour)
			c, cancel := context.WithTimeout(ctx(t), 50*time.Millisecond)
			defer cancel()
			if x, err := h.e.WaitExecution(c, arn); err == nil {
				t.Errorf("execution ended %s (%s) after a day, want it still waiting", x.Status, x.Error)
			}
		})
	}
}
