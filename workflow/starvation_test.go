package workflow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// failingAudit is an AuditLog whose writes keep failing, each using up a
// share of the sweep's time as a write that times out does: after budget
// failures, the sweep's context ends.
type failingAudit struct {
	workflow.AuditLog
	mu       sync.Mutex
	failures int
	budget   int
	cancel   context.CancelFunc
}

func (l *failingAudit) Append(context.Context, workflow.Approval, []workflow.AuditEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures++
	if l.failures == l.budget && l.cancel != nil {
		l.cancel()
	}
	return errors.New("ProvisionedThroughputExceededException")
}

// 1,500 approvals whose audit events cannot be written must not hold up
// the deadline work of another: a sweep whose time covers 100 failed
// writes still decides the onDeadline due behind them. (Their events wait
// in their records; due times do not depend on them.)
func TestFailingAuditWritesDoNotStarveDeadlineWork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	due := f.request(t, func(r *workflow.Request) {
		r.TimeoutSeconds, r.OnDeadline = workflow.MinOnDeadlineTimeout, "reject"
	})
	failing := &failingAudit{AuditLog: f.audit, budget: 100}
	f.svc.Audit = failing
	for range 1500 {
		f.advance(time.Millisecond)
		f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 0 })
	}
	f.advance(workflow.MinOnDeadlineTimeout*time.Second - workflow.OnDeadlineLead)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failing.mu.Lock()
	failing.failures, failing.cancel = 0, cancel
	failing.mu.Unlock()
	rep, _ := f.svc.Recover(ctx)
	got := must(f.svc.Get(context.Background(), due.ID))
	if got.Status != workflow.StatusDecided || got.Decision == nil || got.Decision.DecidedBy != workflow.DecidedByDeadline {
		t.Errorf("the onDeadline approval is %s after the sweep (%d decided, %d audit writes failed); want it rejected by its deadline",
			got.Status, len(rep.Decided), failing.failures)
	}
}
