package sfnlocal

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

var epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

type harness struct {
	t     *testing.T
	e     *Engine
	clock *FakeClock
}

func newHarness(t *testing.T, integs ...task.Integration) *harness {
	t.Helper()
	return newHarnessWith(t, Options{Integrations: integs})
}

// newHarnessWith is newHarness with more options; it sets the Clock.
func newHarnessWith(t *testing.T, opts Options) *harness {
	t.Helper()
	clock := NewFakeClock(epoch)
	opts.Clock = clock
	e := New(opts)
	t.Cleanup(e.Close)
	return &harness{t: t, e: e, clock: clock}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func (h *harness) create(def string) string {
	h.t.Helper()
	return h.createTyped(def, Standard)
}

var machineSeq int
var machineSeqMu sync.Mutex

func (h *harness) createTyped(def string, typ StateMachineType) string {
	h.t.Helper()
	machineSeqMu.Lock()
	machineSeq++
	name := "sm" + time.Duration(machineSeq).String()
	machineSeqMu.Unlock()
	sm, err := h.e.CreateStateMachine(ctx(h.t), CreateStateMachineInput{Name: name, Definition: def, RoleArn: "arn:aws:iam::123456789012:role/sfn", Type: typ})
	if err != nil {
		h.t.Fatalf("CreateStateMachine: %v", err)
	}
	return sm.StateMachineArn
}

func (h *harness) start(machine, input string) string {
	h.t.Helper()
	out, err := h.e.StartExecution(ctx(h.t), StartExecutionInput{StateMachineArn: machine, Input: input})
	if err != nil {
		h.t.Fatalf("StartExecution: %v", err)
	}
	return out.ExecutionArn
}

func (h *harness) wait(arn string) Execution {
	h.t.Helper()
	x, err := h.e.WaitExecution(ctx(h.t), arn)
	if err != nil {
		h.t.Fatalf("WaitExecution: %v", err)
	}
	return x
}

// run starts an execution and waits for it to end.
func (h *harness) run(def, input string) Execution {
	h.t.Helper()
	return h.wait(h.start(h.create(def), input))
}

func (h *harness) events(arn string) []HistoryEvent {
	h.t.Helper()
	out, err := h.e.GetExecutionHistory(ctx(h.t), GetExecutionHistoryInput{ExecutionArn: arn, MaxResults: 1000})
	if err != nil {
		h.t.Fatalf("GetExecutionHistory: %v", err)
	}
	return out.Events
}

func (h *harness) types(arn string) []string {
	var out []string
	for _, ev := range h.events(arn) {
		out = append(out, ev.Type)
	}
	return out
}

// advance waits until n timers are pending, then moves the clock.
func (h *harness) advance(n int, d time.Duration) {
	h.t.Helper()
	if err := h.clock.BlockUntil(ctx(h.t), n); err != nil {
		h.t.Fatalf("waiting for %d timers: %v", n, err)
	}
	h.clock.Advance(d)
}

func succeeded(t *testing.T, x Execution) string {
	t.Helper()
	if x.Status != StatusSucceeded {
		t.Fatalf("status = %s (%s: %s), want SUCCEEDED", x.Status, x.Error, x.Cause)
	}
	return x.Output
}

// jsonEqual compares two JSON texts semantically.
func jsonEqual(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %q", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %q", want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// funcIntegration runs Task states with a Go function.
type funcIntegration func(ctx context.Context, call task.Call) (json.RawMessage, error)

func (funcIntegration) Supports(string) bool { return true }

func (f funcIntegration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	return f(ctx, call)
}

// tokenCatcher is a callback integration: it hands each call to a channel
// and answers like lambda:invoke.
type tokenCatcher struct {
	calls chan task.Call
}

func newTokenCatcher() *tokenCatcher { return &tokenCatcher{calls: make(chan task.Call, 100)} }

func (c *tokenCatcher) Supports(string) bool { return true }

func (c *tokenCatcher) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	c.calls <- call
	return json.RawMessage(`{"StatusCode":200}`), nil
}

func (c *tokenCatcher) next(t *testing.T) task.Call {
	t.Helper()
	select {
	case call := <-c.calls:
		return call
	case <-ctx(t).Done():
		t.Fatal("no task call")
	}
	return task.Call{}
}

type (
	contextCtx  = context.Context
	taskCall    = task.Call
	rawMsg      = json.RawMessage
	taskFailure = task.Failure
)

type taskIntegration = task.Integration

func newTokenCatcherN(n int) *tokenCatcher { return &tokenCatcher{calls: make(chan task.Call, n)} }
