package stepfunctionstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Task states an Outcome reports.
const (
	StateOpen      = "open"
	StateSucceeded = "succeeded"
	StateFailed    = "failed"
	StateTimedOut  = "timed_out"
)

// Outcome is what became of a task: State is one of the State constants,
// or "" for a token the server never issued.
type Outcome struct {
	State  string
	Output string // SendTaskSuccess output, byte for byte
	Error  string // SendTaskFailure error, or "States.Timeout"
	Cause  string
}

// Execution statuses, as DescribeExecution reports them.
const (
	statusRunning = "RUNNING"
)

// errUnknownToken is returned by WaitClosed for a token never issued.
var errUnknownToken = errors.New("stepfunctionstest: unknown task token")

// errServerClosed is returned by WaitClosed once the server is closed.
var errServerClosed = errors.New("stepfunctionstest: server closed")

type execution struct {
	arn     string
	status  string
	started time.Time
	events  []historyEvent
}

type task struct {
	exec      *execution
	stateName string
	outcome   Outcome
	lastEvent int64 // the task's latest event, which its next event follows
	closed    chan struct{}
}

// callbacks is the task-token bookkeeping of the callback pattern: which
// tasks wait on which tokens, the execution histories they write, and how
// SendTask* calls close them. Its methods are safe for concurrent use.
type callbacks struct {
	mu         sync.Mutex
	executions map[string]*execution
	tasks      map[string]*task
	successes  int
	nextExec   int
	now        func() time.Time
}

func newCallbacks() *callbacks {
	return &callbacks{
		executions: map[string]*execution{},
		tasks:      map[string]*task{},
		now:        time.Now,
	}
}

// startTask opens a task in the execution, creating the execution first if
// it is new.
func (c *callbacks) startTask(executionArn, stateName string) string {
	token := newTaskToken()
	c.mu.Lock()
	defer c.mu.Unlock()
	if executionArn == "" {
		c.nextExec++
		executionArn = fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:Approvals:exec-%d", c.nextExec)
	}
	e := c.executions[executionArn]
	if e == nil {
		e = &execution{arn: executionArn, status: statusRunning, started: c.now()}
		c.executions[executionArn] = e
		c.record(e, 0, historyEvent{Type: "ExecutionStarted", ExecutionStarted: &executionStartedDetails{
			Input: ptr("{}"), InputDetails: &dataDetails{}, RoleArn: "arn:aws:iam::123456789012:role/approvals-test",
		}})
	}
	t := &task{exec: e, stateName: stateName, outcome: Outcome{State: StateOpen}, closed: make(chan struct{})}
	t.lastEvent = c.record(e, int64(len(e.events)), historyEvent{Type: "TaskStateEntered", StateEntered: &stateDetails{
		Name: stateName, Input: ptr("{}"), InputDetails: &dataDetails{},
	}})
	t.lastEvent = c.record(e, t.lastEvent, historyEvent{Type: "TaskScheduled", TaskScheduled: &taskScheduledDetails{
		taskResource: lambdaCallback, Region: "us-east-1", Parameters: `{"FunctionName":"approvals-notifier","Payload":{}}`,
	}})
	t.lastEvent = c.record(e, t.lastEvent, historyEvent{Type: "TaskStarted", TaskStarted: &lambdaCallback})
	c.tasks[token] = t
	return token
}

// record appends ev to the execution's history after event prev and
// returns its ID.
func (c *callbacks) record(e *execution, prev int64, ev historyEvent) int64 {
	ev.ID = int64(len(e.events)) + 1
	ev.PreviousEventID = prev
	ev.Timestamp = epochSeconds(c.now())
	e.events = append(e.events, ev)
	return ev.ID
}

func (c *callbacks) submit(token string, output []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tasks[token]
	if t == nil {
		return
	}
	t.lastEvent = c.record(t.exec, t.lastEvent, historyEvent{Type: "TaskSubmitted", TaskSubmitted: &taskOutputDetails{
		taskResource: lambdaCallback, Output: ptr(string(output)), OutputDetails: &dataDetails{},
	}})
}

func (c *callbacks) timeOut(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tasks[token]
	if t == nil || t.outcome.State != StateOpen {
		return
	}
	t.lastEvent = c.record(t.exec, t.lastEvent, historyEvent{Type: "TaskTimedOut", TaskTimedOut: &taskErrorDetails{
		taskResource: lambdaCallback, Error: ptr("States.Timeout"),
	}})
	c.close(t, Outcome{State: StateTimedOut, Error: "States.Timeout"})
}

// open returns the open task for token, or the API error AWS answers.
func (c *callbacks) open(token string) (*task, *apiError) {
	t := c.tasks[token]
	switch {
	case t == nil:
		return nil, errInvalidToken()
	case t.outcome.State != StateOpen:
		return nil, &apiError{Type: "TaskTimedOut", Message: "Task Timed Out: 'Provided task does not exist anymore'"}
	}
	return t, nil
}

// succeed closes the task with output. An unknown token is refused before
// the output is checked, and the output before the task's state.
func (c *callbacks) succeed(token, output string) *apiError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tasks[token] != nil && !json.Valid([]byte(output)) {
		return &apiError{Type: "InvalidOutput", Message: "Invalid Output: 'The output is not valid JSON'"}
	}
	t, err := c.open(token)
	if err != nil {
		return err
	}
	t.lastEvent = c.record(t.exec, t.lastEvent, historyEvent{Type: "TaskSucceeded", TaskSucceeded: &taskOutputDetails{
		taskResource: lambdaCallback, Output: ptr(output), OutputDetails: &dataDetails{},
	}})
	t.lastEvent = c.record(t.exec, t.lastEvent, historyEvent{Type: "TaskStateExited", StateExited: &stateDetails{
		Name: t.stateName, Output: ptr(output), OutputDetails: &dataDetails{},
	}})
	c.successes++
	c.close(t, Outcome{State: StateSucceeded, Output: output})
	return nil
}

func (c *callbacks) fail(token string, errorName, cause *string) *apiError {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.open(token)
	if err != nil {
		return err
	}
	t.lastEvent = c.record(t.exec, t.lastEvent, historyEvent{Type: "TaskFailed", TaskFailed: &taskErrorDetails{
		taskResource: lambdaCallback, Error: errorName, Cause: cause,
	}})
	o := Outcome{State: StateFailed}
	if errorName != nil {
		o.Error = *errorName
	}
	if cause != nil {
		o.Cause = *cause
	}
	c.close(t, o)
	return nil
}

func (c *callbacks) heartbeat(token string) *apiError {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.open(token)
	return err
}

func (c *callbacks) close(t *task, o Outcome) {
	t.outcome = o
	close(t.closed)
}

func (c *callbacks) outcome(token string) Outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.tasks[token]; t != nil {
		return t.outcome
	}
	return Outcome{}
}

func (c *callbacks) successCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.successes
}

// waitClosed blocks until the task closes, ctx ends or done is closed.
func (c *callbacks) waitClosed(ctx context.Context, done <-chan struct{}, token string) (Outcome, error) {
	c.mu.Lock()
	t := c.tasks[token]
	c.mu.Unlock()
	if t == nil {
		return Outcome{}, errUnknownToken
	}
	select {
	case <-t.closed:
		return c.outcome(token), nil
	default:
	}
	select {
	case <-t.closed:
		return c.outcome(token), nil
	case <-ctx.Done():
		return c.outcome(token), ctx.Err()
	case <-done:
		return c.outcome(token), errServerClosed
	}
}

// events returns a copy of the execution's history, or false if there is
// no such execution.
func (c *callbacks) events(executionArn string) ([]historyEvent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.executions[executionArn]
	if e == nil {
		return nil, false
	}
	return append([]historyEvent(nil), e.events...), true
}

// describe returns the execution's status and start, or false.
func (c *callbacks) describe(executionArn string) (status string, started time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.executions[executionArn]
	if e == nil {
		return "", time.Time{}, false
	}
	return e.status, e.started, true
}

func errInvalidToken() *apiError {
	return &apiError{Type: "InvalidToken", Message: "Invalid Token: 'Invalid token'"}
}

// executionName is the last part of an execution ARN.
func executionName(arn string) string {
	return arn[strings.LastIndex(arn, ":")+1:]
}

// stateMachineArn derives the state machine of an execution ARN
// (arn:aws:states:region:account:execution:machine:name).
func stateMachineArn(arn string) string {
	parts := strings.Split(arn, ":")
	if len(parts) < 8 {
		return ""
	}
	return strings.Join(append(append(parts[:5:5], "stateMachine"), parts[6]), ":")
}
