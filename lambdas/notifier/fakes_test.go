package notifier

import (
	"bytes"
	"context"
	"errors"
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

// fakePoster is a Poster that records posts and updates and can fail the
// next posts.
type fakePoster struct {
	mu      sync.Mutex
	posts   []workflow.Approval
	updates []workflow.Approval
	fails   []error                 // returned by the next posts, in order
	lost    int                     // the next posts land but answer an error
	onPost  func(workflow.Approval) // called after a successful post
}

var _ Poster = (*fakePoster)(nil)

func (p *fakePoster) PostRequest(_ context.Context, a workflow.Approval) (string, string, error) {
	p.mu.Lock()
	if len(p.fails) > 0 {
		err := p.fails[0]
		p.fails = p.fails[1:]
		p.mu.Unlock()
		return "", "", err
	}
	p.posts = append(p.posts, a)
	ts := fmt.Sprintf("1700000000.%06d", len(p.posts))
	onPost := p.onPost
	if p.lost > 0 {
		p.lost--
		p.mu.Unlock()
		return "", "", errors.New("slack server error: 500 Internal Server Error")
	}
	p.mu.Unlock()
	if onPost != nil {
		onPost(a)
	}
	return a.Channel, ts, nil
}

func (p *fakePoster) UpdateMessage(_ context.Context, a workflow.Approval) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.updates = append(p.updates, a)
	return nil
}

func (p *fakePoster) Permalink(_ context.Context, channel, ts string) (string, error) {
	return "https://fake.slack.com/archives/" + channel + "/p" + strings.Replace(ts, ".", "", 1), nil
}

func (p *fakePoster) updated() []workflow.Approval {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]workflow.Approval(nil), p.updates...)
}

func (p *fakePoster) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.posts)
}

// logBuffer collects the JSON log lines a handler writes.
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

func (b *logBuffer) lines() []string {
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

type fixture struct {
	store   *workflowtest.Store
	resumer *workflowtest.Resumer
	poster  *fakePoster
	logs    *logBuffer
	handler *Handler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{store: workflowtest.NewStore(), resumer: workflowtest.NewResumer(), poster: &fakePoster{}, logs: &logBuffer{}}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(f.logs), zap.DebugLevel)
	logger := zap.New(core)
	t.Cleanup(func() { _ = logger.Sync() })
	f.handler = New(workflow.NewService(f.store, f.resumer, nil), f.poster, logger)
	return f
}

// stored returns every approval in the store.
func (f *fixture) stored(t *testing.T) []workflow.Approval {
	t.Helper()
	all, _, err := f.store.List(context.Background(), workflow.QueueOpen, "", time.Time{}, 1000)
	if err != nil {
		t.Fatalf("list approvals: %v", err)
	}
	return all
}
