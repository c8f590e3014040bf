package sfnlocal

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// chain renders events as "Type<previousEventId", for exact comparison.
func chain(events []HistoryEvent) string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = fmt.Sprintf("%d:%s<%d", ev.ID, ev.Type, ev.PreviousEventID)
	}
	return strings.Join(out, " ")
}

func hangingTasks(n int) *fixtureIntegration {
	tasks := make([]fixtureTask, n)
	for i := range tasks {
		tasks[i].Hang = true
	}
	return &fixtureIntegration{tasks: tasks, tokens: make(chan string, n+1)}
}

// TestChildrenStartInIndexOrder checks the order AWS records for children
// started together (map_iterations_timeout): each runs, in index order,
// until it first waits; every Task state records TaskScheduled (or
// LambdaFunctionScheduled) there, and TaskStarted only once all have.
func TestChildrenStartInIndexOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hangingTasks(2))
	arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[
		{"StartAt":"F","States":{"F":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f","End":true}}},
		{"StartAt":"S","States":{"S":{"Type":"Pass","Next":"T"},"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"End":true}}},
		{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":10,"End":true}}}]}}}`), `{}`)
	const want = "1:ExecutionStarted<0 2:ParallelStateEntered<0 3:ParallelStateStarted<2 " +
		"4:TaskStateEntered<3 5:LambdaFunctionScheduled<4 " +
		"6:PassStateEntered<3 7:PassStateExited<6 8:TaskStateEntered<7 9:TaskScheduled<8 " +
		"10:WaitStateEntered<3 " +
		"11:LambdaFunctionStarted<5 12:TaskStarted<9"
	h.awaitEvents(arn, 12)
	if got := chain(h.events(arn)); got != want {
		t.Errorf("history\n got  %s\n want %s", got, want)
	}
	if _, err := h.e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: arn}); err != nil {
		t.Fatal(err)
	}
}

// TestTimeoutsDueTogether checks that task timers falling due at the same
// instant all record TaskTimedOut before a state handles its timeout: the
// first fails the Parallel and the other branch's Task state, which had
// not handled its timeout yet, records TaskStateAborted, as the failing
// branch's does (map_iterations_timeout).
func TestTimeoutsDueTogether(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hangingTasks(2))
	task := func(name string) string {
		return `{"StartAt":"` + name + `","States":{"` + name + `":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"TimeoutSeconds":5,"End":true}}}`
	}
	arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[`+task("A")+`,`+task("B")+`]}}}`), `{}`)
	h.awaitEvents(arn, 9)
	h.advance(3, 5*time.Second) // the execution limit and both timeouts
	if x := h.wait(arn); x.Status != StatusFailed || x.Error != errTimeout {
		t.Fatalf("got %s %s, want FAILED %s", x.Status, x.Error, errTimeout)
	}
	const want = "1:ExecutionStarted<0 2:ParallelStateEntered<0 3:ParallelStateStarted<2 " +
		"4:TaskStateEntered<3 5:TaskScheduled<4 6:TaskStateEntered<3 7:TaskScheduled<6 8:TaskStarted<5 9:TaskStarted<7 " +
		"10:TaskTimedOut<8 11:TaskTimedOut<9 " +
		"12:TaskStateAborted<10 13:TaskStateAborted<10 14:ParallelStateFailed<10 15:ExecutionFailed<14"
	if got := chain(h.events(arn)); got != want {
		t.Errorf("history\n got  %s\n want %s", got, want)
	}
}

// TestTimeoutsDueApart checks that a timer due later is not pulled
// forward: the first timeout fails the Map, and the other iteration's
// task, still running, is aborted.
func TestTimeoutsDueApart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hangingTasks(2))
	arn := h.start(h.create(`{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemProcessor":{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"TimeoutSecondsPath":"$","End":true}}}}}}`), `[5,6]`)
	h.awaitEvents(arn, 11)
	h.advance(3, 5*time.Second)
	if x := h.wait(arn); x.Status != StatusFailed || x.Error != errTimeout {
		t.Fatalf("got %s %s, want FAILED %s", x.Status, x.Error, errTimeout)
	}
	const want = "1:ExecutionStarted<0 2:MapStateEntered<0 3:MapStateStarted<2 4:MapIterationStarted<3 5:MapIterationStarted<3 " +
		"6:TaskStateEntered<4 7:TaskScheduled<6 8:TaskStateEntered<5 9:TaskScheduled<8 10:TaskStarted<7 11:TaskStarted<9 " +
		"12:TaskTimedOut<10 13:MapIterationFailed<12 14:TaskStateAborted<12 15:MapIterationAborted<12 16:TaskStateAborted<12 " +
		"17:MapStateFailed<12 18:ExecutionFailed<17"
	if got := chain(h.events(arn)); got != want {
		t.Errorf("history\n got  %s\n want %s", got, want)
	}
}

// TestTimeoutsDueTogetherCaught checks that states handling timeouts that
// fell due together each go on: both iterations catch theirs.
func TestTimeoutsDueTogetherCaught(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hangingTasks(3))
	arn := h.start(h.create(`{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemProcessor":{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"TimeoutSeconds":5,"End":true,
			"Catch":[{"ErrorEquals":["States.Timeout"],"ResultPath":"$.caught","Next":"C"}]},
		"C":{"Type":"Pass","End":true}}}}}}`), `[{"i":0},{"i":1},{"i":2}]`)
	h.awaitEvents(arn, 15)
	h.advance(4, 5*time.Second)
	x := h.wait(arn)
	jsonEqual(t, succeeded(t, x), `[{"i":0,"caught":{"Error":"States.Timeout","Cause":""}},{"i":1,"caught":{"Error":"States.Timeout","Cause":""}},{"i":2,"caught":{"Error":"States.Timeout","Cause":""}}]`)
	types := h.types(arn)
	first := slices.Index(types, EventTaskTimedOut)
	if first < 0 || !slices.Equal(types[first:first+3], []string{EventTaskTimedOut, EventTaskTimedOut, EventTaskTimedOut}) {
		t.Errorf("the three TaskTimedOut are not recorded together: %v", types)
	}
}

// TestMapIterationFailingInTaskState checks the chain of an iteration
// failing in a Task state, by the recording of map_iterations_timeout
// (its iteration 0): MapIterationFailed, TaskStateAborted and
// MapStateFailed all follow the task's failure.
func TestMapIterationFailingInTaskState(t *testing.T) {
	t.Parallel()
	integ := &fixtureIntegration{tasks: []fixtureTask{{Error: "Boom", Cause: "why"}}, tokens: make(chan string, 1)}
	h := newHarness(t, integ)
	x := h.run(`{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemProcessor":{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"End":true}}}}}}`, `[1]`)
	if x.Status != StatusFailed || x.Error != "Boom" {
		t.Fatalf("got %s %s, want FAILED Boom", x.Status, x.Error)
	}
	const want = "1:ExecutionStarted<0 2:MapStateEntered<0 3:MapStateStarted<2 4:MapIterationStarted<3 " +
		"5:TaskStateEntered<4 6:TaskScheduled<5 7:TaskStarted<6 8:TaskFailed<7 " +
		"9:MapIterationFailed<8 10:TaskStateAborted<8 11:MapStateFailed<8 12:ExecutionFailed<11"
	if got := chain(h.events(x.ExecutionArn)); got != want {
		t.Errorf("history\n got  %s\n want %s", got, want)
	}
}
