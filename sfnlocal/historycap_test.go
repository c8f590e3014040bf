package sfnlocal

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// allEvents pages through an execution's whole history.
func (h *harness) allEvents(arn string) []HistoryEvent {
	h.t.Helper()
	var out []HistoryEvent
	next := ""
	for {
		page, err := h.e.GetExecutionHistory(ctx(h.t), GetExecutionHistoryInput{ExecutionArn: arn, MaxResults: 1000, NextToken: next})
		if err != nil {
			h.t.Fatalf("GetExecutionHistory: %v", err)
		}
		out = append(out, page.Events...)
		if next = page.NextToken; next == "" {
			return out
		}
	}
}

// waitForLen polls arn's history until it has n events, failing the test
// after ten seconds.
func (h *harness) waitForLen(arn string, n int) {
	h.t.Helper()
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		got := len(h.allEvents(arn))
		if got == n {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.Done():
			h.t.Fatalf("history has %d events, never %d", got, n)
		}
	}
}

// wantHistoryFull checks an execution the history cap ended: FAILED with
// States.Runtime, exactly 25,000 events, the last an ExecutionFailed
// following event 24,999, whose type is wantBefore when it is not "".
func wantHistoryFull(t *testing.T, h *harness, arn, wantBefore string) {
	t.Helper()
	x := h.wait(arn)
	if x.Status != StatusFailed || x.Error != errRuntime || x.Cause != historyFullCause {
		t.Errorf("execution %s %s (%s), want FAILED %s (%s)", x.Status, x.Error, x.Cause, errRuntime, historyFullCause)
	}
	events := h.allEvents(arn)
	if len(events) != maxHistoryEvents {
		t.Fatalf("history has %d events, want %d", len(events), maxHistoryEvents)
	}
	for i, ev := range events {
		if ev.ID != int64(i+1) {
			t.Fatalf("event %d has id %d", i+1, ev.ID)
		}
	}
	last := events[len(events)-1]
	d, _ := last.Details.(*ErrorEventDetails)
	if last.Type != EventExecutionFailed || last.PreviousEventID != maxHistoryEvents-1 || d == nil ||
		d.Error != errRuntime || d.Cause != historyFullCause {
		t.Errorf("last event %+v (%+v), want ExecutionFailed after %d with %s: %s", last, last.Details, maxHistoryEvents-1, errRuntime, historyFullCause)
	}
	if before := events[len(events)-2].Type; wantBefore != "" && before != wantBefore {
		t.Errorf("event %d is %s, want %s", maxHistoryEvents-1, before, wantBefore)
	}
}

// Endless loops end as AWS ends them: FAILED at the 25,000th event.
func TestHistoryCapEndsEndlessLoops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, wantBefore string
	}{
		{"Pass in a branch", inBranch(`{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"L"}}}`), StateExited("Pass")},
		{"Choice", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"C"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, StateExited("Choice")},
		{"JSONata Choice", `{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Condition":"{% $states.input.x = 1 %}","Next":"C"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, StateExited("Choice")},
		{"Pass and Choice", `{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"C"},"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"L"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, StateExited("Pass")},
		{"Wait 0 in a branch", inBranch(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":0,"Next":"W"}}}`), StateExited("Wait")},
		{"Catch", `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}}],
			"Catch":[{"ErrorEquals":["States.ALL"],"Next":"P"}],"End":true}}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newRunawayHarness(t)
			arn := h.start(h.create(tt.def), `{"x":1}`)
			wantHistoryFull(t, h, arn, tt.wantBefore)
			quietWithin(t, h.e, 10*time.Second)
		})
	}
}

// inBranch wraps a branch in a Parallel state, where a loop without an
// end is a valid definition.
func inBranch(branch string) string {
	return `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[` + branch + `],"End":true}}}`
}

// countdown is a machine that loops n times through a Pass and a Choice,
// 4 events a lap, then succeeds: 4n+4 events in all.
func countdown(n int) string {
	return fmt.Sprintf(`{"StartAt":"Inc","States":{
		"Inc":{"Type":"Pass","Parameters":{"n.$":"States.MathAdd($.n, 1)"},"Next":"Check"},
		"Check":{"Type":"Choice","Choices":[{"Variable":"$.n","NumericEquals":%d,"Next":"Done"}],"Default":"Inc"},
		"Done":{"Type":"Succeed"}}}`, n)
}

// One more lap than fits and the cap fails the execution. An execution
// whose own end event is the 25,000th succeeds: the engine's choice, as no
// recording shows what AWS does at exactly that boundary.
func TestHistoryCapBoundary(t *testing.T) {
	t.Parallel()
	const laps = (maxHistoryEvents - 4) / 4
	h := newRunawayHarness(t)

	arn := h.start(h.create(countdown(laps)), `{"n":0}`)
	jsonEqual(t, succeeded(t, h.wait(arn)), fmt.Sprintf(`{"n":%d}`, laps))
	if n := len(h.allEvents(arn)); n != maxHistoryEvents {
		t.Errorf("history has %d events, want %d", n, maxHistoryEvents)
	}

	arn = h.start(h.create(countdown(laps+1)), `{"n":0}`)
	wantHistoryFull(t, h, arn, StateExited("Pass"))
}

// Map iterations and Parallel branches share the history: together they
// reach the cap, and everything they wait on is released: timers stop,
// task tokens close, no goroutine is left.
func TestHistoryCapCountsChildren(t *testing.T) {
	t.Parallel()
	items := strings.Repeat(`1,`, 4999) + `1`
	tests := []struct {
		name, def, input string
		// waits: a Parallel whose loop starts after a 10 s Wait, once its
		// callback task holds a token, with a third branch waiting an hour.
		waits bool
	}{
		{"Map", `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"A","States":{
			"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","End":true}}},"End":true}}}`, `[` + items + `]`, false},
		{"Map of loops", `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"L","States":{
			"L":{"Type":"Pass","Next":"L"}}},"End":true}}}`, `[1,2,3,4,5,6,7,8,9,10]`, false},
		{"Parallel", `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[
			{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}},
			{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","End":true}}},
			{"StartAt":"S","States":{"S":{"Type":"Wait","Seconds":10,"Next":"N"},
				"N":{"Type":"Map","ItemProcessor":{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"L"}}},"End":true}}}
			],"End":true}}}`, `[1,2]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := newTokenCatcher()
			clock := NewFakeClock(epoch)
			e := New(Options{Clock: clock, Integrations: []taskIntegration{calls}})
			t.Cleanup(func() { closeWithin(t, e, 10*time.Second) })
			h := &harness{t: t, e: e, clock: clock}

			arn := h.start(h.create(tt.def), tt.input)
			var token string
			if tt.waits {
				token = calls.next(t).TaskToken
				h.advance(3, 10*time.Second) // the execution's limit and the two Waits
			}
			wantHistoryFull(t, h, arn, "")
			quietWithin(t, e, 10*time.Second)
			if n := clock.Pending(); n != 0 {
				t.Errorf("%d timers still pending", n)
			}
			if token != "" {
				err := e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: token, Output: `{}`})
				if ErrorCode(err) != CodeTaskTimedOut {
					t.Errorf("SendTaskSuccess after the cap: %v, want %s", err, CodeTaskTimedOut)
				}
			}
			if n := len(h.allEvents(arn)); n != maxHistoryEvents {
				t.Errorf("history grew to %d events after the end", n)
			}
		})
	}
}

// A distributed Map child run is an execution of its own on AWS: an
// endless one fails with the cap's error, as one failed item of the run.
func TestHistoryCapEndsDistributedChildRuns(t *testing.T) {
	t.Parallel()
	h := newRunawayHarness(t)
	x := h.run(`{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},
		"StartAt":"L","States":{"L":{"Type":"Pass","Next":"L"}}},"ToleratedFailurePercentage":100,"End":true}}}`, `[1]`)
	jsonEqual(t, succeeded(t, x), `[{"Error":"States.Runtime","Cause":"The execution reached the maximum number of history events (25000)."}]`)
	quietWithin(t, h.e, 10*time.Second)
}

// Stopping an execution whose history is one event short of the cap
// records the stop as event 25,000, not the cap, and no abort event.
func TestHistoryCapLeavesRoomForStop(t *testing.T) {
	t.Parallel()
	// 1 + 4·6248 = 24,993 events, then Pad's 2 and Hold's 4:
	// TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted.
	const laps = 6248
	calls := newTokenCatcher()
	clock := NewFakeClock(epoch)
	e := New(Options{Clock: clock, Integrations: []taskIntegration{calls}})
	t.Cleanup(func() { closeWithin(t, e, 10*time.Second) })
	h := &harness{t: t, e: e, clock: clock}
	arn := h.start(h.create(fmt.Sprintf(`{"StartAt":"Inc","States":{
		"Inc":{"Type":"Pass","Parameters":{"n.$":"States.MathAdd($.n, 1)"},"Next":"Check"},
		"Check":{"Type":"Choice","Choices":[{"Variable":"$.n","NumericEquals":%d,"Next":"Pad"}],"Default":"Inc"},
		"Pad":{"Type":"Pass","Next":"Hold"},
		"Hold":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","End":true}}}`, laps)), `{"n":0}`)
	calls.next(t)
	h.waitForLen(arn, maxHistoryEvents-1)
	if _, err := e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: arn, Error: "Stop", Cause: "by test"}); err != nil {
		t.Fatal(err)
	}
	x := h.wait(arn)
	if x.Status != StatusAborted || x.Error != "Stop" {
		t.Errorf("execution %s %s, want ABORTED Stop", x.Status, x.Error)
	}
	events := h.allEvents(arn)
	last := events[len(events)-1]
	if len(events) != maxHistoryEvents || last.Type != EventExecutionAborted || last.PreviousEventID != maxHistoryEvents-1 {
		t.Errorf("history ends with event %d %s after %d, want %d %s after %d", last.ID, last.Type, last.PreviousEventID,
			maxHistoryEvents, EventExecutionAborted, maxHistoryEvents-1)
	}
}
