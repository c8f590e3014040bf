package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// fakePoster records updates and replies and can fail them.
type fakePoster struct {
	mu        sync.Mutex
	updates   []workflow.Approval
	replies   []workflow.Approval
	notices   []workflow.Approval
	updateErr error // returned by every update while set
	replyErr  error
	calls     int
}

var _ Poster = (*fakePoster)(nil)

func (p *fakePoster) UpdateMessage(_ context.Context, a workflow.Approval) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.updateErr != nil {
		return p.updateErr
	}
	p.updates = append(p.updates, a)
	return nil
}

func (p *fakePoster) PostReply(_ context.Context, a workflow.Approval) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.replyErr != nil {
		return p.replyErr
	}
	p.replies = append(p.replies, a)
	return nil
}

func (p *fakePoster) PostRequesterNotice(_ context.Context, a workflow.Approval) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	p.notices = append(p.notices, a)
	return nil
}

func (p *fakePoster) counts() (updates, replies, calls int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.updates), len(p.replies), p.calls
}

type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type fixture struct {
	store   *workflowtest.Store
	svc     *workflow.Service
	poster  *fakePoster
	logs    *logBuffer
	handler *Handler
	seq     int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{store: workflowtest.NewStore(), poster: &fakePoster{}, logs: &logBuffer{}}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(f.logs), zap.DebugLevel)
	logger := zap.New(core)
	t.Cleanup(func() { _ = logger.Sync() })
	f.svc = workflow.NewService(f.store, nil, nil)
	f.handler = New(f.svc, f.poster, logger)
	return f
}

const (
	execution = "arn:aws:states:eu-west-1:210987654321:execution:publish:run-1"
	machine   = "arn:aws:states:eu-west-1:210987654321:stateMachine:publish"
	// secretInput is in every event's input and output: the workflow's
	// data, which must never reach a log line.
	secretInput = "do-not-log-this-input"
)

// request stores a pending approval of the execution with its message
// posted (in a thread when thread is set).
func (f *fixture) request(t *testing.T, arn, thread string) workflow.Approval {
	t.Helper()
	f.seq++
	r := workflow.Request{
		TaskToken:    workflow.TaskToken(fmt.Sprintf("AQB8-token-%d-%s", f.seq, strings.Repeat("x", 40))),
		ExecutionARN: arn,
		StateName:    "Approve",
		Channel:      "C0123ABCD",
		ThreadTS:     thread,
		Approvers:    []string{"U0123ABCD"},
		Title:        fmt.Sprintf("Request %d", f.seq),
	}
	a, _, err := f.svc.Request(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = f.svc.RecordMessage(context.Background(), a.ID, "C0123ABCD", fmt.Sprintf("1700000000.%06d", f.seq)); err != nil {
		t.Fatal(err)
	}
	return a
}

// event is an execution status change event as EventBridge delivers it;
// stop is zero for a running execution.
func event(t *testing.T, arn, status string, stop time.Time) []byte {
	t.Helper()
	var stopDate any
	if !stop.IsZero() {
		stopDate = stop.UnixMilli()
	}
	b, err := json.Marshal(map[string]any{
		"version": "0", "id": "6f3c1e52-5b5a-4c8e-9a55-8c3b1c2d9e10",
		"detail-type": DetailType, "source": Source,
		"account": "210987654321", "time": time.Now().UTC().Format(time.RFC3339), "region": "eu-west-1",
		"resources": []string{arn},
		"detail": map[string]any{
			"executionArn": arn, "stateMachineArn": machine, "name": "run-1", "status": status,
			"startDate": stop.Add(-time.Hour).UnixMilli(), "stopDate": stopDate,
			"input": `{"note":"` + secretInput + `"}`, "output": `"` + secretInput + `"`,
			"error": nil, "cause": nil,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fixture) get(t *testing.T, id string) workflow.Approval {
	t.Helper()
	a, err := f.svc.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
