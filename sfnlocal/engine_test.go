package sfnlocal

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

const passDef = `{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`

func TestCreateStateMachine(t *testing.T) {
	h := newHarness(t)
	c := ctx(t)
	in := CreateStateMachineInput{Name: "approvals", Definition: passDef, RoleArn: "arn:aws:iam::123456789012:role/r"}
	sm, err := h.e.CreateStateMachine(c, in)
	if err != nil {
		t.Fatal(err)
	}
	if sm.StateMachineArn != "arn:aws:states:us-east-1:123456789012:stateMachine:approvals" || sm.Status != StateMachineActive || sm.Type != Standard {
		t.Errorf("created %+v", sm)
	}
	again, err := h.e.CreateStateMachine(c, in)
	if err != nil || again.StateMachineArn != sm.StateMachineArn {
		t.Errorf("identical create = %+v, %v; want idempotent", again, err)
	}
	in.Definition = `{"StartAt":"B","States":{"B":{"Type":"Succeed"}}}`
	if _, err := h.e.CreateStateMachine(c, in); ErrorCode(err) != CodeStateMachineAlreadyExists {
		t.Errorf("different definition: %v", err)
	}
	tests := []struct {
		in   CreateStateMachineInput
		want string
	}{
		{CreateStateMachineInput{Name: "bad name", Definition: passDef}, CodeInvalidName},
		{CreateStateMachineInput{Name: "x", Definition: `{"StartAt":"A","States":{}}`}, CodeInvalidDefinition},
		{CreateStateMachineInput{Name: "x", Definition: `not json`}, CodeInvalidDefinition},
		{CreateStateMachineInput{Name: "x", Definition: passDef, Type: "BATCH"}, CodeValidationException},
	}
	for _, tt := range tests {
		if _, err := h.e.CreateStateMachine(c, tt.in); ErrorCode(err) != tt.want {
			t.Errorf("%+v: got %v, want %s", tt.in, err, tt.want)
		}
	}
	if _, err := h.e.DescribeStateMachine(c, "arn:aws:states:us-east-1:123456789012:stateMachine:nope"); ErrorCode(err) != CodeStateMachineDoesNotExist {
		t.Errorf("describe missing: %v", err)
	}
	if _, err := h.e.DescribeStateMachine(c, "nope"); ErrorCode(err) != CodeInvalidArn {
		t.Errorf("describe bad arn: %v", err)
	}
}

func TestUpdateAndDeleteStateMachine(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	c := ctx(t)
	sm := h.create(approval(""))
	running := h.start(sm, `{}`)
	call := calls.next(t)

	before, _ := h.e.DescribeStateMachine(c, sm)
	out, err := h.e.UpdateStateMachine(c, UpdateStateMachineInput{StateMachineArn: sm, Definition: passDef})
	if err != nil || out.RevisionID == before.RevisionID {
		t.Fatalf("update = %+v, %v", out, err)
	}
	if _, err := h.e.UpdateStateMachine(c, UpdateStateMachineInput{StateMachineArn: sm, Definition: `{}`}); ErrorCode(err) != CodeInvalidDefinition {
		t.Errorf("invalid update: %v", err)
	}
	var ae *APIError
	if _, err := h.e.UpdateStateMachine(c, UpdateStateMachineInput{StateMachineArn: sm}); !errors.As(err, &ae) ||
		ae.Code != CodeValidationException || ae.Reason != ReasonMissingRequiredParameter {
		t.Errorf("update without changes: %v, want ValidationException (MISSING_REQUIRED_PARAMETER)", err)
	}
	updated := h.start(sm, `{"new":1}`)
	jsonEqual(t, succeeded(t, h.wait(updated)), `{"new":1}`)

	if err := h.e.DeleteStateMachine(c, sm); err != nil {
		t.Fatal(err)
	}
	if d, _ := h.e.DescribeStateMachine(c, sm); d.Status != StateMachineDeleting {
		t.Errorf("status after delete = %s", d.Status)
	}
	if _, err := h.e.StartExecution(c, StartExecutionInput{StateMachineArn: sm}); ErrorCode(err) != CodeStateMachineDeleting {
		t.Errorf("start on deleting: %v", err)
	}
	// The running execution keeps its original definition and finishes.
	// Held here, as the machine's executions are forgotten when it goes.
	x, err := h.e.execution(running)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.e.SendTaskSuccess(c, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `"yes"`}); err != nil {
		t.Fatal(err)
	}
	<-x.done
	x.mu.Lock()
	ended := x.describeLocked()
	x.mu.Unlock()
	jsonEqual(t, succeeded(t, ended), `{"decision":"yes"}`)
	if _, err := h.e.DescribeStateMachine(c, sm); ErrorCode(err) != CodeStateMachineDoesNotExist {
		t.Errorf("after last execution: %v", err)
	}
	for _, arn := range []string{running, updated} {
		if _, err := h.e.DescribeExecution(c, arn); ErrorCode(err) != CodeExecutionDoesNotExist {
			t.Errorf("execution of the deleted machine: %v, want ExecutionDoesNotExist", err)
		}
	}
}

func TestListStateMachinesPaging(t *testing.T) {
	h := newHarness(t)
	c := ctx(t)
	for range 5 {
		h.create(passDef)
	}
	var names []string
	token := ""
	for {
		out, err := h.e.ListStateMachines(c, ListStateMachinesInput{MaxResults: 2, NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.StateMachines {
			names = append(names, m.Name)
		}
		if token = out.NextToken; token == "" {
			break
		}
	}
	if len(names) != 5 {
		t.Errorf("listed %v", names)
	}
	if _, err := h.e.ListStateMachines(c, ListStateMachinesInput{NextToken: "garbage"}); ErrorCode(err) != CodeInvalidToken {
		t.Errorf("bad token: %v", err)
	}
}

func TestStartExecutionIdempotency(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	c := ctx(t)
	sm := h.create(approval(""))
	in := StartExecutionInput{StateMachineArn: sm, Name: "order-1", Input: `{"a":1}`}
	first, err := h.e.StartExecution(c, in)
	if err != nil {
		t.Fatal(err)
	}
	call := calls.next(t)
	again, err := h.e.StartExecution(c, in)
	if err != nil || again != first {
		t.Errorf("same name and input while running = %+v, %v; want the original", again, err)
	}
	in.Input = `{"a":2}`
	if _, err := h.e.StartExecution(c, in); ErrorCode(err) != CodeExecutionAlreadyExists {
		t.Errorf("different input: %v", err)
	}
	if err := h.e.SendTaskSuccess(c, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`}); err != nil {
		t.Fatal(err)
	}
	h.wait(first.ExecutionArn)
	in.Input = `{"a":1}`
	if _, err := h.e.StartExecution(c, in); ErrorCode(err) != CodeExecutionAlreadyExists {
		t.Errorf("same name after the end: %v", err)
	}
	for _, bad := range []StartExecutionInput{
		{StateMachineArn: sm, Input: `{"a":`},
		{StateMachineArn: sm, Input: `approved`},
	} {
		if _, err := h.e.StartExecution(c, bad); ErrorCode(err) != CodeInvalidExecutionInput {
			t.Errorf("input %q: %v", bad.Input, err)
		}
	}
	if _, err := h.e.StartExecution(c, StartExecutionInput{StateMachineArn: sm, Input: `3`}); err != nil {
		t.Errorf("scalar input: %v", err)
	}
	if _, err := h.e.StartExecution(c, StartExecutionInput{StateMachineArn: sm, Name: "a/b"}); ErrorCode(err) != CodeInvalidName {
		t.Errorf("bad name: %v", err)
	}
}

func TestExpressExecutions(t *testing.T) {
	h := newHarness(t)
	sm := h.createTyped(passDef, Express)
	a := h.start(sm, `{}`)
	if !strings.Contains(a, ":express:") {
		t.Errorf("arn %s", a)
	}
	succeeded(t, h.wait(a))
}

func TestListExecutions(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	c := ctx(t)
	sm := h.create(approval(""))
	done := h.start(sm, `{}`)
	call := calls.next(t)
	_ = h.e.SendTaskSuccess(c, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`})
	h.wait(done)
	h.clock.Advance(time.Second)
	running := h.start(sm, `{}`)
	calls.next(t)
	out, err := h.e.ListExecutions(c, ListExecutionsInput{StateMachineArn: sm})
	if err != nil || len(out.Executions) != 2 || out.Executions[0].ExecutionArn != running {
		t.Fatalf("list = %+v, %v; want newest first", out, err)
	}
	out, _ = h.e.ListExecutions(c, ListExecutionsInput{StateMachineArn: sm, StatusFilter: StatusRunning})
	if len(out.Executions) != 1 || out.Executions[0].ExecutionArn != running {
		t.Errorf("running = %+v", out.Executions)
	}
}

func TestFinishedExecutionsAreBounded(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarnessWith(t, Options{Integrations: []task.Integration{calls}, MaxFinishedExecutions: 3})
	c := ctx(t)
	sm := h.create(approval(""))
	running := h.start(sm, `{}`)
	calls.next(t)
	var ended []string
	for i := range 5 {
		h.clock.Advance(time.Second)
		arn := h.start(sm, `{}`)
		call := calls.next(t)
		if i == 1 {
			_, _ = h.e.StopExecution(c, StopExecutionInput{ExecutionArn: arn})
		} else {
			_ = h.e.SendTaskSuccess(c, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{}`})
		}
		h.wait(arn)
		ended = append(ended, arn)
	}
	for _, arn := range ended[:2] {
		if _, err := h.e.DescribeExecution(c, arn); ErrorCode(err) != CodeExecutionDoesNotExist {
			t.Errorf("DescribeExecution of an old one: %v, want ExecutionDoesNotExist", err)
		}
		if _, err := h.e.GetExecutionHistory(c, GetExecutionHistoryInput{ExecutionArn: arn}); ErrorCode(err) != CodeExecutionDoesNotExist {
			t.Errorf("GetExecutionHistory of an old one: %v, want ExecutionDoesNotExist", err)
		}
	}
	for _, arn := range append(ended[2:], running) {
		if _, err := h.e.DescribeExecution(c, arn); err != nil {
			t.Errorf("DescribeExecution of a kept one: %v", err)
		}
		if len(h.events(arn)) == 0 {
			t.Errorf("kept %s without its history", arn)
		}
	}
	out, err := h.e.ListExecutions(c, ListExecutionsInput{StateMachineArn: sm})
	var got []string
	for _, x := range out.Executions {
		got = append(got, x.ExecutionArn)
	}
	if want := []string{ended[4], ended[3], ended[2], running}; err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ListExecutions = %v, %v; want %v", got, err, want)
	}
}

func TestHistoryPagingAndData(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","End":true}}}`, `{"secret":1}`)
	c := ctx(t)
	out, err := h.e.GetExecutionHistory(c, GetExecutionHistoryInput{ExecutionArn: x.ExecutionArn, MaxResults: 2, ReverseOrder: true})
	if err != nil || len(out.Events) != 2 || out.Events[0].Type != EventExecutionSucceeded || out.NextToken == "" {
		t.Fatalf("page 1 = %+v, %v", out, err)
	}
	no := false
	all, _ := h.e.GetExecutionHistory(c, GetExecutionHistoryInput{ExecutionArn: x.ExecutionArn, IncludeExecutionData: &no})
	for _, ev := range all.Events {
		b, _ := json.Marshal(ev)
		if strings.Contains(string(b), "secret") {
			t.Errorf("event with data: %s", b)
		}
	}
}

func TestHistoryEventJSON(t *testing.T) {
	ev := HistoryEvent{ID: 3, PreviousEventID: 2, Timestamp: time.Unix(1712345678, 123e6), Type: EventTaskScheduled,
		Details: &TaskScheduledEventDetails{ResourceType: "lambda", Resource: "invoke.waitForTaskToken", Region: "us-east-1", Parameters: `{"a":1}`}}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":3,"previousEventId":2,"timestamp":1712345678.123,"type":"TaskScheduled","taskScheduledEventDetails":{"resourceType":"lambda","resource":"invoke.waitForTaskToken","region":"us-east-1","parameters":"{\"a\":1}"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	for typ, field := range map[string]string{
		"PassStateEntered": "stateEnteredEventDetails", "MapStateExited": "stateExitedEventDetails",
		"MapIterationStarted": "mapIterationStartedEventDetails", "ExecutionFailed": "executionFailedEventDetails",
	} {
		if got := DetailsField(typ); got != field {
			t.Errorf("DetailsField(%s) = %s, want %s", typ, got, field)
		}
	}
}

func TestContextObject(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"c.$":"$$"},"OutputPath":"$.c","End":true}}}`, `{"in":1}`)
	var c map[string]map[string]any
	if err := json.Unmarshal([]byte(succeeded(t, x)), &c); err != nil {
		t.Fatal(err)
	}
	if c["Execution"]["Id"] != x.ExecutionArn || c["Execution"]["StartTime"] != "2025-01-02T03:04:05.000Z" ||
		c["State"]["Name"] != "A" || c["StateMachine"]["Name"] == nil {
		t.Errorf("context = %v", c)
	}
	// As on AWS, only the states that can retry (Task, Parallel, Map)
	// have $$.State.RetryCount.
	if _, ok := c["State"]["RetryCount"]; ok {
		t.Errorf("a Pass state's $$.State has RetryCount: %v", c["State"])
	}
}

func TestCloseStopsRunningExecutions(t *testing.T) {
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	arn := h.start(h.create(approval("")), `{}`)
	calls.next(t)
	h.e.Close()
	if x := h.wait(arn); x.Status != StatusAborted {
		t.Errorf("status after Close = %s", x.Status)
	}
}
