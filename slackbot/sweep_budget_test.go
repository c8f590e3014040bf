package slackbot

import (
	"context"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// budgetProbe reports how long each sweep call was given.
type budgetProbe struct {
	Approvals
	recover, unsynced chan time.Duration
}

func (p *budgetProbe) Recover(ctx context.Context) (workflow.RecoverReport, error) {
	report(p.recover, ctx)
	return p.Approvals.Recover(ctx)
}

func (p *budgetProbe) Unsynced(ctx context.Context, limit int) ([]workflow.Approval, error) {
	report(p.unsynced, ctx)
	return p.Approvals.Unsynced(ctx, limit)
}

func report(ch chan time.Duration, ctx context.Context) {
	budget := time.Duration(-1) // no deadline
	if d, ok := ctx.Deadline(); ok {
		budget = time.Until(d)
	}
	select {
	case ch <- budget:
	default:
	}
}

// A sweep's calls are calls to Approvals like any other, bounded by
// CallTimeout: bounded by a short SweepInterval, a sweep on a busy machine
// never finished and a stale claim was never completed.
func TestSweepCallsHaveTheCallTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := testConfig()
	cfg.SweepInterval = 20 * time.Millisecond
	cfg.CallTimeout = time.Hour
	probe := &budgetProbe{Approvals: h.svc, recover: make(chan time.Duration, 1), unsynced: make(chan time.Duration, 1)}
	h.startBot(cfg, probe)
	for name, ch := range map[string]chan time.Duration{"Recover": probe.recover, "Unsynced": probe.unsynced} {
		select {
		case budget := <-ch:
			if budget < 50*time.Minute {
				t.Errorf("%s was given %s, want CallTimeout (%s)", name, budget, cfg.CallTimeout)
			}
		case <-t.Context().Done():
			t.Fatalf("no sweep called %s", name)
		}
	}
}
