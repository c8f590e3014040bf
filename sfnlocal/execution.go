package sfnlocal

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Execution statuses.
const (
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
	StatusTimedOut  = "TIMED_OUT"
	StatusAborted   = "ABORTED"

	statusAborted = StatusAborted
)

// maxExecutionAge is how long a Standard execution may run on AWS.
const maxExecutionAge = 365 * 24 * time.Hour

// StartExecutionInput is StartExecution's request. StateMachineArn may end
// in "#TestCase" to select a mocked test case.
type StartExecutionInput struct {
	StateMachineArn string
	Name            string // default: a UUID
	Input           string // JSON text; default "{}"
	TraceHeader     string
}

// StartExecutionOutput is StartExecution's response.
type StartExecutionOutput struct {
	ExecutionArn string
	StartDate    time.Time
}

// Execution describes an execution, as DescribeExecution does. Output is
// set when it succeeded; Error and Cause when it failed, timed out or was
// aborted with them.
type Execution struct {
	ExecutionArn    string
	StateMachineArn string
	Name            string
	Status          string
	StartDate       time.Time
	StopDate        time.Time
	Input           string
	Output          string
	Error           string
	Cause           string
	RedriveCount    int
	// RedriveStatus is always NOT_REDRIVABLE: the engine cannot redrive.
	RedriveStatus       string
	RedriveStatusReason string
	TraceHeader         string
}

// StopExecutionInput is StopExecution's request.
type StopExecutionInput struct {
	ExecutionArn string
	Error        string
	Cause        string
}

// StopExecutionOutput is StopExecution's response.
type StopExecutionOutput struct {
	StopDate time.Time
}

// ListExecutionsInput is ListExecutions' request.
type ListExecutionsInput struct {
	StateMachineArn string
	StatusFilter    string // "" for all
	MaxResults      int
	NextToken       string
}

// ExecutionListItem is one entry of ListExecutions.
type ExecutionListItem struct {
	ExecutionArn    string
	StateMachineArn string
	Name            string
	Status          string
	StartDate       time.Time
	StopDate        time.Time
}

// ListExecutionsOutput is ListExecutions' response.
type ListExecutionsOutput struct {
	Executions []ExecutionListItem
	NextToken  string
}

// GetExecutionHistoryInput is GetExecutionHistory's request.
// IncludeExecutionData nil means true.
type GetExecutionHistoryInput struct {
	ExecutionArn         string
	MaxResults           int
	NextToken            string
	ReverseOrder         bool
	IncludeExecutionData *bool
}

// GetExecutionHistoryOutput is GetExecutionHistory's response.
type GetExecutionHistoryOutput struct {
	Events    []HistoryEvent
	NextToken string
}

type execution struct {
	e        *Engine
	m        *machine
	def      *definition
	arn      string
	name     string
	roleArn  string
	testCase string
	input    any
	inText   string
	trace    string
	start    time.Time
	express  bool
	done     chan struct{}
	root     *thread
	// test is set for the transient execution of a TestState run.
	test *testRun

	mu      sync.Mutex
	status  string
	stop    time.Time
	output  string
	errName string
	cause   string
	events  []HistoryEvent
	timer   Timer
	// armed holds the task attempts whose TimeoutSeconds or
	// HeartbeatSeconds timer runs; armSeq numbers them in arming order.
	armed  map[*taskRun]struct{}
	armSeq uint64
	// ending is set once the execution is being ended from outside its
	// states or by the history cap, so the cap does not end it twice.
	ending bool
}

// StartExecution starts an execution and returns at once; it runs in the
// background. For a Standard machine, starting again with the name and
// input of a running execution returns that execution; any other reuse of
// a name is ExecutionAlreadyExists. A "#TestCase" suffix no configured
// integration defines (task.TestCaseChecker) is a ValidationException.
// Errors also: InvalidArn, StateMachineDoesNotExist, StateMachineDeleting,
// InvalidName, InvalidExecutionInput.
func (e *Engine) StartExecution(ctx context.Context, in StartExecutionInput) (StartExecutionOutput, error) {
	_, testCase, _ := strings.Cut(in.StateMachineArn, "#")
	if in.Input == "" {
		in.Input = "{}"
	}
	input, err := decodeJSON([]byte(in.Input))
	if err != nil {
		return StartExecutionOutput{}, apiErrorf(CodeInvalidExecutionInput, "Invalid State Machine Execution Input: '%v'", err)
	}
	if in.Name == "" {
		in.Name = newID()
	} else if !validName(in.Name) {
		return StartExecutionOutput{}, apiErrorf(CodeInvalidName, "Invalid Name: '%s'", in.Name)
	}

	e.mu.Lock()
	m, err := e.machineLocked(in.StateMachineArn)
	if err != nil {
		e.mu.Unlock()
		return StartExecutionOutput{}, err
	}
	if m.deleting {
		e.mu.Unlock()
		return StartExecutionOutput{}, apiErrorf(CodeStateMachineDeleting, "State Machine is being deleted: '%s'", m.arn)
	}
	if testCase != "" && !e.hasTestCase(m.arn, testCase) {
		e.mu.Unlock()
		return StartExecutionOutput{}, apiErrorf(CodeValidationException, "Test case '%s' is not defined for state machine '%s' in the mock configuration", testCase, m.name)
	}
	express := m.typ == Express
	var arn string
	if express {
		arn = fmt.Sprintf("arn:aws:states:%s:%s:express:%s:%s:%s", e.region, e.acct, m.name, in.Name, newID())
	} else {
		arn = fmt.Sprintf("arn:aws:states:%s:%s:execution:%s:%s", e.region, e.acct, m.name, in.Name)
		if old, ok := e.executions[arn]; ok {
			e.mu.Unlock()
			old.mu.Lock()
			same := old.status == StatusRunning && old.inText == in.Input
			old.mu.Unlock()
			if same {
				return StartExecutionOutput{ExecutionArn: old.arn, StartDate: old.start}, nil
			}
			return StartExecutionOutput{}, apiErrorf(CodeExecutionAlreadyExists, "Execution Already Exists: '%s'", arn)
		}
	}
	x := &execution{e: e, m: m, def: m.def, arn: arn, name: in.Name, roleArn: m.roleArn, testCase: testCase,
		input: input, inText: in.Input, trace: in.TraceHeader, start: e.clock.Now(), express: express,
		done: make(chan struct{}), status: StatusRunning}
	x.root = newThread(x, e.ctx, x.def, nil, x.finish)
	// ExecutionStarted is recorded before anyone can see the execution, so
	// a StopExecution racing with this call is always recorded after it.
	x.mu.Lock()
	x.appendLocked(EventExecutionStarted, 0, &ExecutionStartedEventDetails{Input: x.inText, InputDetails: notTruncated, RoleArn: x.roleArn})
	x.statusChangedLocked()
	x.mu.Unlock()
	e.executions[arn] = x
	m.running++
	e.mu.Unlock()

	x.begin()
	return StartExecutionOutput{ExecutionArn: x.arn, StartDate: x.start}, nil
}

// begin arms the execution time limit and runs the first state, unless
// the execution was already stopped.
func (x *execution) begin() {
	x.mu.Lock()
	if x.status != StatusRunning {
		x.mu.Unlock()
		return
	}
	limit := maxExecutionAge
	if x.def.timeoutSeconds > 0 {
		limit = seconds(float64(x.def.timeoutSeconds))
	}
	x.timer = x.e.clock.AfterFunc(limit, func() {
		x.terminate(StatusTimedOut, EventExecutionTimedOut, &ErrorEventDetails{Error: errTimeout, Cause: "The execution timed out."})
	})
	x.mu.Unlock()

	x.e.spawn(func() { x.root.begin(x.input) })
}

// appendLocked appends an event and returns its id, or 0 when the
// history cap fails the execution instead (see roomLocked).
func (x *execution) appendLocked(typ string, prev int64, details any) int64 {
	if !x.roomLocked() {
		return 0
	}
	id := int64(len(x.events) + 1)
	x.events = append(x.events, HistoryEvent{ID: id, PreviousEventID: prev, Timestamp: x.e.clock.Now(), Type: typ, Details: details})
	return id
}

// finish ends a running execution when its top-level states end.
func (x *execution) finish(out any, serr *stateError) {
	x.mu.Lock()
	if x.status != StatusRunning {
		x.mu.Unlock()
		return
	}
	prev := x.root.lastID
	if serr != nil {
		x.status, x.errName, x.cause = StatusFailed, serr.Name, serr.Cause
		x.appendLocked(EventExecutionFailed, prev, &ErrorEventDetails{Error: serr.Name, Cause: serr.Cause})
	} else {
		x.status, x.output = StatusSucceeded, jsonvalue.Encode(out)
		x.appendLocked(EventExecutionSucceeded, prev, &ExecutionSucceededEventDetails{Output: x.output, OutputDetails: notTruncated})
	}
	x.closeLocked()
	x.mu.Unlock()
	x.released()
}

// terminate ends a running execution from outside its states (stop,
// timeout, engine close): it aborts what is running and records the event.
func (x *execution) terminate(status, eventType string, d *ErrorEventDetails) bool {
	x.mu.Lock()
	if x.status != StatusRunning {
		x.mu.Unlock()
		return false
	}
	x.ending = true
	x.root.abortLocked()
	x.status, x.errName, x.cause = status, d.Error, d.Cause
	x.appendLocked(eventType, x.root.lastIDLocked(), d)
	x.closeLocked()
	x.mu.Unlock()
	x.released()
	return true
}

// closeLocked settles an execution whose final history event is recorded.
func (x *execution) closeLocked() {
	x.stop = x.e.clock.Now()
	if x.timer != nil {
		x.timer.Stop()
	}
	x.statusChangedLocked()
}

// released updates the machine's running count once the execution ended,
// forgets the executions past the engine's bound, tells the integrations
// and then wakes WaitExecution, so a waiter sees the end fully settled.
func (x *execution) released() {
	e := x.e
	e.mu.Lock()
	x.m.running--
	e.finished = append(e.finished, x)
	for len(e.finished) > e.maxDone {
		old := e.finished[0]
		e.finished[0] = nil
		e.finished = e.finished[1:]
		e.forgetLocked(old)
	}
	e.reapLocked(x.m)
	e.mu.Unlock()
	e.executionEnded(x.arn)
	close(x.done)
}

// forgetLocked drops an ended execution and its history.
func (e *Engine) forgetLocked(x *execution) {
	if e.executions[x.arn] == x {
		delete(e.executions, x.arn)
	}
}

func (x *execution) describeLocked() Execution {
	rs, why := redriveStatus(x.status)
	return Execution{ExecutionArn: x.arn, StateMachineArn: x.m.arn, Name: x.name, Status: x.status,
		StartDate: x.start, StopDate: x.stop, Input: x.inText, Output: x.output, Error: x.errName, Cause: x.cause, TraceHeader: x.trace,
		RedriveStatus: rs, RedriveStatusReason: why}
}

func (e *Engine) execution(arn string) (*execution, error) {
	if !strings.HasPrefix(arn, "arn:aws:states:") || !(strings.Contains(arn, ":execution:") || strings.Contains(arn, ":express:")) {
		return nil, apiErrorf(CodeInvalidArn, "Invalid Arn: 'Resource type not valid in this context: %s'", arn)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.executions[arn]
	if !ok {
		return nil, apiErrorf(CodeExecutionDoesNotExist, "Execution Does Not Exist: '%s'", arn)
	}
	return x, nil
}

// DescribeExecution returns an execution. Errors: InvalidArn,
// ExecutionDoesNotExist.
func (e *Engine) DescribeExecution(ctx context.Context, arn string) (Execution, error) {
	x, err := e.execution(arn)
	if err != nil {
		return Execution{}, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.describeLocked(), nil
}

// WaitExecution blocks until the execution ends or ctx is done, then
// describes it. It is for Go callers and tests; the API has no such call.
func (e *Engine) WaitExecution(ctx context.Context, arn string) (Execution, error) {
	x, err := e.execution(arn)
	if err != nil {
		return Execution{}, err
	}
	select {
	case <-x.done:
	case <-ctx.Done():
		return Execution{}, ctx.Err()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.describeLocked(), nil
}

// StopExecution aborts a running execution: its open task tokens close
// (SendTask* then answers TaskTimedOut) and ExecutionAborted is recorded
// with the given error and cause. Stopping an ended execution changes
// nothing. Errors: InvalidArn, ExecutionDoesNotExist.
func (e *Engine) StopExecution(ctx context.Context, in StopExecutionInput) (StopExecutionOutput, error) {
	x, err := e.execution(in.ExecutionArn)
	if err != nil {
		return StopExecutionOutput{}, err
	}
	x.terminate(StatusAborted, EventExecutionAborted, &ErrorEventDetails{Error: in.Error, Cause: in.Cause})
	x.mu.Lock()
	defer x.mu.Unlock()
	return StopExecutionOutput{StopDate: x.stop}, nil
}

// ListExecutions lists a machine's executions, newest first. Errors:
// InvalidArn, StateMachineDoesNotExist, InvalidToken, ValidationException.
func (e *Engine) ListExecutions(ctx context.Context, in ListExecutionsInput) (ListExecutionsOutput, error) {
	e.mu.Lock()
	m, err := e.machineLocked(in.StateMachineArn)
	var all []*execution
	if err == nil {
		for _, x := range e.executions {
			if x.m == m {
				all = append(all, x)
			}
		}
	}
	e.mu.Unlock()
	if err != nil {
		return ListExecutionsOutput{}, err
	}
	switch in.StatusFilter {
	case "", StatusRunning, StatusSucceeded, StatusFailed, StatusTimedOut, StatusAborted, "PENDING_REDRIVE":
	default:
		return ListExecutionsOutput{}, apiErrorf(CodeValidationException, "1 validation error detected: Value '%s' at 'statusFilter' failed to satisfy constraint: Member must satisfy enum value set: [SUCCEEDED, TIMED_OUT, PENDING_REDRIVE, FAILED, ABORTED, RUNNING]", in.StatusFilter)
	}
	items := make([]ExecutionListItem, 0, len(all))
	for _, x := range all {
		x.mu.Lock()
		if in.StatusFilter == "" || x.status == in.StatusFilter {
			items = append(items, ExecutionListItem{ExecutionArn: x.arn, StateMachineArn: m.arn, Name: x.name, Status: x.status, StartDate: x.start, StopDate: x.stop})
		}
		x.mu.Unlock()
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].StartDate.Equal(items[j].StartDate) {
			return items[i].StartDate.After(items[j].StartDate)
		}
		return items[i].ExecutionArn > items[j].ExecutionArn
	})
	start, end, next, err := page(len(items), in.MaxResults, in.NextToken, 100)
	if err != nil {
		return ListExecutionsOutput{}, err
	}
	return ListExecutionsOutput{Executions: items[start:end], NextToken: next}, nil
}

// GetExecutionHistory pages through an execution's events, oldest first or
// (ReverseOrder) newest first, MaxResults at a time (0 means 100, at most
// 1000); see historyPage. Errors: InvalidArn, ExecutionDoesNotExist,
// InvalidToken (a token of another execution or direction, or mangled),
// ValidationException.
func (e *Engine) GetExecutionHistory(ctx context.Context, in GetExecutionHistoryInput) (GetExecutionHistoryOutput, error) {
	x, err := e.execution(in.ExecutionArn)
	if err != nil {
		return GetExecutionHistoryOutput{}, err
	}
	x.mu.Lock()
	from, to, next, err := historyPage(x.arn, len(x.events), in)
	var events []HistoryEvent
	if err == nil && len(x.events) > 0 {
		events = pageEvents(x.events, from, to)
	}
	x.mu.Unlock()
	if err != nil {
		return GetExecutionHistoryOutput{}, err
	}
	if in.IncludeExecutionData != nil && !*in.IncludeExecutionData {
		for i := range events {
			events[i].Details = withoutData(events[i].Details)
		}
	}
	return GetExecutionHistoryOutput{Events: events, NextToken: next}, nil
}
