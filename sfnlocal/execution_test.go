package sfnlocal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// observer is an integration that runs no Task states: it defines some
// mock test cases and counts the executions it is told ended.
type observer struct {
	testCases map[string]bool // "stateMachineArn#TestCase"

	mu    sync.Mutex
	ended map[string]int
}

func newObserver(testCases ...string) *observer {
	o := &observer{testCases: map[string]bool{}, ended: map[string]int{}}
	for _, tc := range testCases {
		o.testCases[tc] = true
	}
	return o
}

func (*observer) Supports(string) bool { return false }

func (*observer) Invoke(context.Context, taskCall) (json.RawMessage, error) {
	return nil, errors.New("observer runs no tasks")
}

func (o *observer) HasTestCase(stateMachineARN, testCase string) bool {
	return o.testCases[stateMachineARN+"#"+testCase]
}

func (o *observer) ExecutionEnded(executionARN string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended[executionARN]++
}

func (o *observer) endedCounts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]int, len(o.ended))
	for k, v := range o.ended {
		out[k] = v
	}
	return out
}

func TestExecutionEndedTellsIntegrations(t *testing.T) {
	o := newObserver()
	h := newHarness(t, o)
	c := ctx(t)
	want := map[string]string{} // execution ARN → final status

	for _, def := range []string{passDef, `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}}`} {
		x := h.wait(h.start(h.create(def), `{}`))
		want[x.ExecutionArn] = x.Status
	}

	timesOut := h.start(h.create(`{"TimeoutSeconds":1,"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":10,"End":true}}}`), `{}`)
	h.advance(2, time.Second)
	want[timesOut] = h.wait(timesOut).Status

	waits := h.create(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":100,"End":true}}}`)
	stopped := h.start(waits, `{}`)
	if _, err := h.e.StopExecution(c, StopExecutionInput{ExecutionArn: stopped}); err != nil {
		t.Fatal(err)
	}
	want[stopped] = h.wait(stopped).Status

	closed := h.start(waits, `{}`)
	if ended := o.endedCounts(); ended[closed] != 0 {
		t.Fatalf("ExecutionEnded for a running execution")
	}
	h.e.Close() // waits for the engine's goroutines, so every end was reported
	want[closed] = h.wait(closed).Status

	ended := o.endedCounts()
	statuses := map[string]bool{}
	for arn, status := range want {
		statuses[status] = true
		if ended[arn] != 1 {
			t.Errorf("%s execution: ExecutionEnded called %d times, want once", status, ended[arn])
		}
	}
	if len(ended) != len(want) || len(statuses) != 4 {
		t.Errorf("ended %v for executions %v; want one call per execution, every terminal status", ended, want)
	}
}

func TestStartExecutionTestCase(t *testing.T) {
	const machine = "arn:aws:states:us-east-1:123456789012:stateMachine:cases"
	tests := []struct {
		name     string
		integ    taskIntegration // nil: none
		testCase string
		wantErr  string // error code; empty when the execution starts
	}{
		{"defined test case", newObserver(machine + "#Happy"), "Happy", ""},
		{"undefined test case", newObserver(machine + "#Happy"), "Nope", CodeValidationException},
		{"no integration knows test cases", nil, "Happy", CodeValidationException},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h *harness
			if tt.integ == nil {
				h = newHarness(t)
			} else {
				h = newHarness(t, tt.integ)
			}
			if _, err := h.e.CreateStateMachine(ctx(t), CreateStateMachineInput{Name: "cases", Definition: passDef}); err != nil {
				t.Fatal(err)
			}
			out, err := h.e.StartExecution(ctx(t), StartExecutionInput{StateMachineArn: machine + "#" + tt.testCase})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("StartExecution: %v", err)
				}
				succeeded(t, h.wait(out.ExecutionArn))
				return
			}
			if ErrorCode(err) != tt.wantErr || !strings.Contains(err.Error(), "'"+tt.testCase+"'") {
				t.Fatalf("StartExecution = %+v, %v; want %s naming the test case", out, err, tt.wantErr)
			}
		})
	}
}
