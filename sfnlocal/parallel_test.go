package sfnlocal

import (
	"slices"
	"testing"
	"time"
)

// TestParallelFailureAbortChain checks the chain of a failing branch while
// another branch's task runs. AWS's recordings of Parallel failures could
// not be found (LocalStack's test_parallel_state_fail and
// test_parallel_state_catch are not AWS-validated), so the chain is the
// one AWS records for a failing Map iteration (map_failure,
// map_iterations_timeout): the running task records TaskStateAborted,
// then ParallelStateFailed, both following the failing branch's last
// state event, and ExecutionFailed follows ParallelStateFailed.
func TestParallelFailureAbortChain(t *testing.T) {
	t.Parallel()
	integ := &fixtureIntegration{tasks: []fixtureTask{{Hang: true}}, tokens: make(chan string, 1)}
	h := newHarness(t, integ)
	arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[
		{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"End":true}}},
		{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":1,"Next":"F"},"F":{"Type":"Fail","Error":"Boom"}}}]}}}`), `{}`)
	h.awaitEvents(arn, 7) // both branches started: the task runs, the Wait waits
	h.advance(2, time.Second)
	if x := h.wait(arn); x.Status != StatusFailed || x.Error != "Boom" {
		t.Fatalf("got %s %s, want FAILED Boom", x.Status, x.Error)
	}
	events := h.events(arn)
	got := eventTypes(events)
	tail := []string{"FailStateEntered", "TaskStateAborted", "ParallelStateFailed", "ExecutionFailed"}
	if !slices.Equal(got[len(got)-4:], tail) {
		t.Fatalf("history ends %v, want %v", got[len(got)-4:], tail)
	}
	failing := events[len(events)-4].ID
	for _, ev := range events[len(events)-3 : len(events)-1] {
		if ev.PreviousEventID != failing {
			t.Errorf("%s follows %d, want the failing branch's FailStateEntered %d", ev.Type, ev.PreviousEventID, failing)
		}
	}
	if last := events[len(events)-1]; last.PreviousEventID != events[len(events)-2].ID {
		t.Errorf("ExecutionFailed follows %d, want ParallelStateFailed %d", last.PreviousEventID, events[len(events)-2].ID)
	}
	for _, typ := range []string{"TaskStateExited", "TaskFailed", "ParallelStateSucceeded", "ParallelStateExited"} {
		if slices.Contains(got, typ) {
			t.Errorf("history has %s: %v", typ, got)
		}
	}
}
