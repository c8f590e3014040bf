package sfnlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	zapobserver "go.uber.org/zap/zaptest/observer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// eventLog is an Options.Events sink that keeps what it receives.
type eventLog struct{ ch chan []byte }

func newEventLog() *eventLog { return &eventLog{ch: make(chan []byte, 1000)} }

func (l *eventLog) sink(_ context.Context, event []byte) { l.ch <- event }

// next waits for the next event.
func (l *eventLog) next(t *testing.T) []byte {
	t.Helper()
	select {
	case ev := <-l.ch:
		return ev
	case <-ctx(t).Done():
		t.Fatal("no status change event")
	}
	return nil
}

// statusEvent is the part of an event the tests read.
type statusEvent struct {
	ID         string   `json:"id"`
	DetailType string   `json:"detail-type"`
	Source     string   `json:"source"`
	Time       string   `json:"time"`
	Resources  []string `json:"resources"`
	Detail     struct {
		ExecutionArn string  `json:"executionArn"`
		Status       string  `json:"status"`
		Input        *string `json:"input"`
		Output       *string `json:"output"`
		InputDetails *struct {
			Included bool `json:"included"`
		} `json:"inputDetails"`
		OutputDetails *struct {
			Included bool `json:"included"`
		} `json:"outputDetails"`
	} `json:"detail"`
}

func parseEvent(t *testing.T, raw []byte) statusEvent {
	t.Helper()
	var ev statusEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("event %s: %v", raw, err)
	}
	return ev
}

// nextFor waits for the next event and checks it reports arn's status.
func (l *eventLog) nextFor(t *testing.T, arn, status string) statusEvent {
	t.Helper()
	ev := parseEvent(t, l.next(t))
	if ev.Detail.ExecutionArn != arn || ev.Detail.Status != status {
		t.Fatalf("event for %s %s, want %s %s", ev.Detail.ExecutionArn, ev.Detail.Status, arn, status)
	}
	return ev
}

// drained runs a marker execution to its end and checks that its two
// events are the next ones: delivery is in order, so nothing else was
// queued before its RUNNING.
func (l *eventLog) drained(t *testing.T, h *harness) {
	t.Helper()
	arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`), `{}`)
	h.wait(arn)
	l.nextFor(t, arn, StatusRunning)
	l.nextFor(t, arn, StatusSucceeded)
}

// receive waits for a value from ch, failing the test after ten seconds.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx(t).Done():
		t.Fatal("nothing received")
	}
	var zero T
	return zero
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// normalise replaces an event's random id, once checked, by a fixed one.
func normalise(t *testing.T, raw []byte) []byte {
	t.Helper()
	id := parseEvent(t, raw).ID
	if !uuidPattern.MatchString(id) {
		t.Fatalf("event id %q is not a version 4 UUID", id)
	}
	return bytes.Replace(raw, []byte(`"id":"`+id+`"`), []byte(`"id":"00000000-0000-4000-8000-000000000000"`), 1)
}

// golden compares events, indented and in order, with testdata/events/name.json.
func golden(t *testing.T, name string, events ...[]byte) {
	t.Helper()
	var got bytes.Buffer
	got.WriteString("[\n")
	for i, ev := range events {
		if i > 0 {
			got.WriteString(",\n")
		}
		got.WriteString("  ")
		if err := json.Indent(&got, normalise(t, ev), "  ", "  "); err != nil {
			t.Fatalf("event %s: %v", ev, err)
		}
	}
	got.WriteString("\n]\n")
	path := filepath.Join("testdata", "events", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func (h *harness) createNamed(name, def string) string {
	h.t.Helper()
	sm, err := h.e.CreateStateMachine(ctx(h.t), CreateStateMachineInput{Name: name, Definition: def, RoleArn: "arn:aws:iam::123456789012:role/sfn"})
	if err != nil {
		h.t.Fatalf("CreateStateMachine: %v", err)
	}
	return sm.StateMachineArn
}

func (h *harness) startNamed(machine, name, input string) string {
	h.t.Helper()
	out, err := h.e.StartExecution(ctx(h.t), StartExecutionInput{StateMachineArn: machine, Name: name, Input: input})
	if err != nil {
		h.t.Fatalf("StartExecution: %v", err)
	}
	return out.ExecutionArn
}

// Every status an execution reaches is reported by one event, the
// document AWS sends (compared with golden files, ids aside).
func TestStatusChangeEventDocuments(t *testing.T) {
	t.Parallel()
	const waiting = `{"StartAt":"Approve","States":{"Approve":{"Type":"Wait","Seconds":3600,"End":true}}}`
	tests := []struct {
		name, def, input string
		// end ends the execution, if it does not end by itself.
		end func(h *harness, arn string)
	}{
		{name: "succeeded", def: `{"StartAt":"Publish","States":{"Publish":{"Type":"Pass","Result":{"published":true},"ResultPath":"$.result","End":true}}}`,
			input: `{"post":"Hello \"world\" <b>"}`},
		{name: "failed", def: `{"StartAt":"Reject","States":{"Reject":{"Type":"Fail","Error":"Rejected","Cause":"Alice said no"}}}`,
			input: `{"post":"draft"}`},
		{name: "failed_without_error", def: `{"StartAt":"Reject","States":{"Reject":{"Type":"Fail"}}}`, input: `{}`},
		{name: "timed_out", def: `{"TimeoutSeconds":60,"StartAt":"Approve","States":{"Approve":{"Type":"Wait","Seconds":3600,"End":true}}}`,
			input: `{}`, end: func(h *harness, arn string) { h.advance(2, 61*time.Second) }},
		{name: "aborted", def: waiting, input: `{"post":"draft"}`, end: func(h *harness, arn string) {
			h.clock.Advance(90 * time.Second)
			if _, err := h.e.StopExecution(ctx(h.t), StopExecutionInput{ExecutionArn: arn, Error: "Superseded", Cause: "A newer draft replaced this one."}); err != nil {
				h.t.Fatalf("StopExecution: %v", err)
			}
		}},
		{name: "aborted_without_error", def: waiting, input: `{}`, end: func(h *harness, arn string) {
			if _, err := h.e.StopExecution(ctx(h.t), StopExecutionInput{ExecutionArn: arn}); err != nil {
				h.t.Fatalf("StopExecution: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events := newEventLog()
			h := newHarnessWith(t, Options{Events: events.sink, Region: "eu-west-1", AccountID: "210987654321"})
			arn := h.startNamed(h.createNamed("publish", tt.def), "run-1", tt.input)
			running := events.next(t)
			if tt.end != nil {
				tt.end(h, arn)
			}
			h.wait(arn)
			golden(t, tt.name, running, events.next(t))
		})
	}
}

// An event is delivered after the history event that caused it, by a
// goroutine that holds no engine lock: the sink reads the execution's
// history and description from the engine.
func TestStatusChangeEventsFollowTheHistory(t *testing.T) {
	t.Parallel()
	lastEvent := map[string]string{
		StatusRunning: EventExecutionStarted, StatusSucceeded: EventExecutionSucceeded, StatusFailed: EventExecutionFailed,
		StatusTimedOut: EventExecutionTimedOut, StatusAborted: EventExecutionAborted,
	}
	type seen struct {
		status, described string
		history           []string
	}
	got := make(chan seen, 100)
	var e *Engine
	h := newHarnessWith(t, Options{Events: func(ctx context.Context, raw []byte) {
		var ev statusEvent
		_ = json.Unmarshal(raw, &ev)
		arn := ev.Detail.ExecutionArn
		s := seen{status: ev.Detail.Status}
		if hist, err := e.GetExecutionHistory(ctx, GetExecutionHistoryInput{ExecutionArn: arn}); err == nil {
			for _, he := range hist.Events {
				s.history = append(s.history, he.Type)
			}
		}
		if x, err := e.DescribeExecution(ctx, arn); err == nil {
			s.described = x.Status
		}
		got <- s
	}})
	e = h.e

	for _, def := range []string{
		`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`,
		`{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}}`,
		`{"TimeoutSeconds":1,"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":60,"End":true}}}`,
	} {
		h.start(h.create(def), `{}`)
	}
	h.advance(2, time.Second)
	stopped := h.start(h.create(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":60,"End":true}}}`), `{}`)
	if _, err := h.e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: stopped}); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]int{}
	for range 8 {
		s := receive(t, got)
		statuses[s.status]++
		if !slices.Contains(s.history, lastEvent[s.status]) {
			t.Errorf("%s event: the history %v lacks %s", s.status, s.history, lastEvent[s.status])
		}
		if s.status != StatusRunning && (s.described != s.status || s.history[len(s.history)-1] != lastEvent[s.status]) {
			t.Errorf("%s event: DescribeExecution says %q, the history ends with %v", s.status, s.described, s.history)
		}
	}
	want := map[string]int{StatusRunning: 4, StatusSucceeded: 1, StatusFailed: 1, StatusTimedOut: 1, StatusAborted: 1}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("events by status (-want +got):\n%s", diff)
	}
}

// Each status change is reported once: concurrent stops, the execution's
// own timeout after a stop and stops of an ended execution add nothing.
func TestStatusChangeEventsOncePerChange(t *testing.T) {
	t.Parallel()
	events := newEventLog()
	h := newHarnessWith(t, Options{Events: events.sink})
	arn := h.start(h.create(`{"TimeoutSeconds":60,"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}}`), `{}`)
	events.nextFor(t, arn, StatusRunning)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := h.e.StopExecution(context.Background(), StopExecutionInput{ExecutionArn: arn}); err != nil {
				t.Errorf("StopExecution: %v", err)
			}
		})
	}
	wg.Wait()
	h.clock.Advance(2 * time.Minute)
	if _, err := h.e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: arn, Error: "Again"}); err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	events.nextFor(t, arn, StatusAborted)
	events.drained(t, h)
}

// An execution that times out after its TimeoutSeconds reports TIMED_OUT
// once, even while a task waits on a token.
func TestStatusChangeEventOnExecutionTimeout(t *testing.T) {
	t.Parallel()
	events := newEventLog()
	tasks := newTokenCatcher()
	h := newHarnessWith(t, Options{Events: events.sink, Integrations: []taskIntegration{tasks}})
	arn := h.start(h.create(`{"TimeoutSeconds":30,"StartAt":"Approve","States":{"Approve":{"Type":"Task",
		"Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"notifier","Payload":{"token.$":"$$.Task.Token"}},"End":true}}}`), `{}`)
	tasks.next(t)
	h.advance(1, 30*time.Second)
	if x := h.wait(arn); x.Status != StatusTimedOut {
		t.Fatalf("execution %s, want TIMED_OUT", x.Status)
	}
	events.nextFor(t, arn, StatusRunning)
	events.nextFor(t, arn, StatusTimedOut)
	events.drained(t, h)
}

// Express executions emit no events, as on AWS.
func TestStatusChangeEventsNotForExpress(t *testing.T) {
	t.Parallel()
	events := newEventLog()
	h := newHarnessWith(t, Options{Events: events.sink})
	arn := h.start(h.createTyped(`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`, Express), `{}`)
	h.wait(arn)
	events.drained(t, h)
}

// The history cap's FAILED is reported like any other.
func TestStatusChangeEventOnHistoryCap(t *testing.T) {
	t.Parallel()
	events := newEventLog()
	h := newHarnessWith(t, Options{Events: events.sink})
	arn := h.start(h.create(`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"C"}],"Default":"D"},"D":{"Type":"Succeed"}}}`), `{"x":1}`)
	h.wait(arn)
	events.nextFor(t, arn, StatusRunning)
	events.nextFor(t, arn, StatusFailed)
	events.drained(t, h)
}

// A sink that does not return holds up no execution: events past the
// buffer are dropped and logged, the ones queued are delivered in order
// once it returns.
func TestBlockedEventSinkDoesNotStallExecutions(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	entered := make(chan struct{})
	delivered := make(chan statusEvent, 100)
	first := true
	core, logs := zapobserver.New(zapcore.WarnLevel)
	h := newHarnessWith(t, Options{Logger: zap.New(core), EventBuffer: 2, Events: func(ctx context.Context, raw []byte) {
		if first {
			first = false
			close(entered)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		var ev statusEvent
		_ = json.Unmarshal(raw, &ev)
		delivered <- ev
	}})
	machine := h.create(`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`)

	firstArn := h.start(machine, `{}`)
	receive(t, entered) // the sink now holds the RUNNING event of the first execution
	h.wait(firstArn)
	var arns []string
	for range 10 {
		arn := h.start(machine, `{}`)
		if x := h.wait(arn); x.Status != StatusSucceeded {
			t.Fatalf("execution %s while the sink was blocked", x.Status)
		}
		arns = append(arns, arn)
	}
	if n := logs.FilterMessageSnippet("event dropped").Len(); n == 0 {
		t.Error("no dropped event was logged")
	}
	for _, entry := range logs.FilterMessageSnippet("event dropped").All() {
		if entry.ContextMap()["execution_arn"] == "" || entry.ContextMap()["status"] == "" {
			t.Errorf("drop logged without the execution and status: %v", entry.ContextMap())
		}
	}

	releaseOnce.Do(func() { close(release) })
	var got []string
	for range 3 { // the one the sink held and the two the buffer kept
		ev := receive(t, delivered)
		got = append(got, ev.Detail.ExecutionArn+" "+ev.Detail.Status)
	}
	want := []string{firstArn + " RUNNING", firstArn + " SUCCEEDED", arns[0] + " RUNNING"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delivered events (-want +got):\n%s", diff)
	}
}

// Close cancels the sink call under way, waits for it and delivers
// nothing more, not even the ABORTED of the executions it stops.
func TestCloseStopsEventDelivery(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	entered, returned := make(chan struct{}), make(chan struct{})
	e := New(Options{Clock: NewFakeClock(epoch), Events: func(ctx context.Context, _ []byte) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			close(entered)
			<-ctx.Done()
			close(returned)
		}
	}})
	t.Cleanup(e.Close)
	h := &harness{t: t, e: e}
	waiting := h.create(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}}`)
	h.start(waiting, `{}`)
	h.start(waiting, `{}`)
	receive(t, entered)

	e.Close()
	select {
	case <-returned:
	default:
		t.Fatal("Close returned before the sink call it cancelled")
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Errorf("the sink was called %d times, want once", calls)
	}
}

// A sink that panics does not take the engine or later deliveries down.
func TestPanickingEventSink(t *testing.T) {
	t.Parallel()
	events := newEventLog()
	first := true
	h := newHarnessWith(t, Options{Events: func(ctx context.Context, raw []byte) {
		if first {
			first = false
			panic("sink bug")
		}
		events.sink(ctx, raw)
	}})
	arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`), `{}`)
	h.wait(arn)
	events.nextFor(t, arn, StatusSucceeded)
}

// Input and output are left out past AWS's 248 KB, the input first.
func TestStatusChangeEventLeavesOutLargeData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		size                  int
		wantInput, wantOutput bool
		wantRunningInput      bool
	}{
		{name: "small", size: 1000, wantInput: true, wantOutput: true, wantRunningInput: true},
		{name: "together too large", size: 150 * 1024, wantInput: false, wantOutput: true, wantRunningInput: true},
		{name: "each too large", size: 250 * 1024, wantInput: false, wantOutput: false, wantRunningInput: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events := newEventLog()
			h := newHarnessWith(t, Options{Events: events.sink})
			input := `{"text":"` + strings.Repeat("x", tt.size) + `"}`
			arn := h.start(h.create(`{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`), input)
			h.wait(arn)
			running := events.nextFor(t, arn, StatusRunning)
			done := events.nextFor(t, arn, StatusSucceeded)
			checkData(t, "RUNNING input", running.Detail.Input, running.Detail.InputDetails, input, tt.wantRunningInput)
			checkData(t, "SUCCEEDED input", done.Detail.Input, done.Detail.InputDetails, input, tt.wantInput)
			checkData(t, "SUCCEEDED output", done.Detail.Output, done.Detail.OutputDetails, input, tt.wantOutput)
		})
	}
}

func checkData(t *testing.T, what string, got *string, details *struct {
	Included bool `json:"included"`
}, want string, wantIncluded bool) {
	t.Helper()
	switch {
	case details == nil:
		t.Errorf("%s: no details", what)
	case details.Included != wantIncluded:
		t.Errorf("%s: included %v, want %v", what, details.Included, wantIncluded)
	case wantIncluded && (got == nil || *got != want):
		t.Errorf("%s: missing or changed", what)
	case !wantIncluded && got != nil:
		t.Errorf("%s: present (%d bytes), want null", what, len(*got))
	}
}
