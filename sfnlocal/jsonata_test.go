package sfnlocal

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"
)

// $now() and $millis() answer the engine's clock: here a FakeClock moved
// 90 seconds past the execution's start by a Wait state.
func TestJSONataNowIsTheEngineClock(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	arn := h.start(h.create(`{"QueryLanguage":"JSONata","StartAt":"Wait","States":{
		"Wait":{"Type":"Wait","Seconds":90,"Next":"Stamp"},
		"Stamp":{"Type":"Pass","Assign":{"assigned":"{% $millis() %}"},
			"Output":{"now":"{% $now() %}","millis":"{% $millis() %}","entered":"{% $states.context.State.EnteredTime %}"},"Next":"Check"},
		"Check":{"Type":"Pass","Output":"{% $merge([$states.input, {'assigned': $assigned}]) %}","End":true}}}`), `{}`)
	h.advance(2, 90*time.Second) // the execution's time limit and the Wait
	want := epoch.Add(90 * time.Second)
	millis := strconv.FormatInt(want.UnixMilli(), 10)
	jsonEqual(t, succeeded(t, h.wait(arn)),
		`{"now":"2025-01-02T03:05:35.000Z","millis":`+millis+`,"entered":"2025-01-02T03:05:35.000Z","assigned":`+millis+`}`)
}

// endless is a state machine, with the top-level fields more, whose
// first state evaluates a JSONata expression that never ends (a tail call
// is a loop: it never overflows).
func endless(more string) string {
	return `{"QueryLanguage":"JSONata","StartAt":"Loop",` + more + `"States":{
		"Loop":{"Type":"Pass","Output":"{% ($f := function($n){ $f($n + 1) }; $f(0)) %}","End":true}}}`
}

// TestEndlessJSONataEnds checks that StopExecution, the execution's time
// limit and Engine.Close each end an execution stuck in an endless
// evaluation, that the stop is what the history records, and that no
// goroutine is left running it.
func TestEndlessJSONataEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		more       string
		end        func(h *harness, arn string)
		wantStatus string
		wantError  string
	}{
		{"StopExecution", "", func(h *harness, arn string) {
			if _, err := h.e.StopExecution(ctx(h.t), StopExecutionInput{ExecutionArn: arn, Error: "Stopped", Cause: "by test"}); err != nil {
				h.t.Fatal(err)
			}
		}, StatusAborted, "Stopped"},
		{"TimeoutSeconds", `"TimeoutSeconds":5,`, func(h *harness, _ string) {
			h.advance(1, 5*time.Second)
		}, StatusTimedOut, errTimeout},
		{"Engine.Close", "", func(h *harness, _ string) {
			closeWithin(h.t, h.e, 10*time.Second)
		}, StatusAborted, "Engine.Closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newRunawayHarness(t)
			arn := h.start(h.create(endless(tt.more)), `{}`)
			h.waitForEvent(arn, StateEntered("Pass"))
			tt.end(h, arn)
			x := h.wait(arn)
			if x.Status != tt.wantStatus || x.Error != tt.wantError {
				t.Errorf("execution %s %s (%s), want %s %s", x.Status, x.Error, x.Cause, tt.wantStatus, tt.wantError)
			}
			quietWithin(t, h.e, 10*time.Second)
			types := h.types(arn)
			if want := []string{EventExecutionStarted, StateEntered("Pass")}; !slices.Equal(types[:len(types)-1], want) {
				t.Errorf("history %v, want %v and the end", types, want)
			}
		})
	}
}

// A Parallel branch stuck in an endless evaluation stops when a sibling
// branch fails the state, even though a Catch lets the execution go on.
func TestEndlessJSONataBranchEndsWithItsParallel(t *testing.T) {
	t.Parallel()
	h := newRunawayHarness(t)
	arn := h.start(h.create(`{"QueryLanguage":"JSONata","StartAt":"Both","States":{
		"Both":{"Type":"Parallel","Branches":[
			{"StartAt":"Loop","States":{"Loop":{"Type":"Pass","Output":"{% ($f := function(){ $f() }; $f()) %}","End":true}}},
			{"StartAt":"Entered","States":{"Entered":{"Type":"Wait","Seconds":1,"Next":"Fail"},"Fail":{"Type":"Fail","Error":"Boom"}}}],
			"Catch":[{"ErrorEquals":["Boom"],"Next":"Hold"}],"End":true},
		"Hold":{"Type":"Wait","Seconds":3600,"End":true}}}`), `{}`)
	h.waitForEvent(arn, StateEntered("Pass"))
	h.advance(2, time.Second) // the execution's time limit and the Wait: the second branch fails
	h.waitForEvent(arn, StateEntered("Wait"), StateEntered("Wait"))
	quietWithin(t, h.e, 10*time.Second) // the execution waits in Hold; the loop is gone
	if x := h.describe(arn); x.Status != StatusRunning {
		t.Errorf("status %s (%s: %s), want RUNNING in Hold", x.Status, x.Error, x.Cause)
	}
}

// newRunawayHarness is newHarness for tests whose executions may never
// end on their own: if the engine fails to stop them, the test fails
// instead of hanging in Close.
func newRunawayHarness(t *testing.T) *harness {
	t.Helper()
	clock := NewFakeClock(epoch)
	e := New(Options{Clock: clock})
	t.Cleanup(func() { closeWithin(t, e, 10*time.Second) })
	return &harness{t: t, e: e, clock: clock}
}

// closeWithin closes e and fails the test if that takes longer than d.
func closeWithin(t *testing.T, e *Engine, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { e.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Errorf("Engine.Close still waiting for its goroutines after %v", d)
	}
}

// quietWithin fails the test unless every goroutine of e returns within d.
func quietWithin(t *testing.T, e *Engine, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { waitQuiet(e); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("engine goroutines still running after %v", d)
	}
}

// waitForEvent polls arn's history until it holds the events types (in
// order, among others), failing the test after ten seconds.
func (h *harness) waitForEvent(arn string, types ...string) {
	h.t.Helper()
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if containsInOrder(h.types(arn), types) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.Done():
			h.t.Fatalf("history %v never held %v", h.types(arn), types)
		}
	}
}

func containsInOrder(have, want []string) bool {
	for _, x := range have {
		if len(want) > 0 && x == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}

func (h *harness) describe(arn string) Execution {
	h.t.Helper()
	x, err := h.e.DescribeExecution(ctx(h.t), arn)
	if err != nil {
		h.t.Fatal(err)
	}
	return x
}
