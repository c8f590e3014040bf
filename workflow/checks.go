package workflow

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// ExecutionChecks paces the safety net behind CloseExecution: Recover asks
// Step Functions (Service.Executions) whether the executions of pending
// approvals still run, and closes the approvals of those that ended or are
// gone. Step Functions allows DescribeExecution about 15 calls a second
// per account and region (a bucket of 300), shared with everything else,
// so the checks are bounded: each Recover run asks about at most PerRun
// executions, one call per execution whatever its number of approvals,
// never about one it asked about less than Every ago, those known running
// longest ago first (by the later of the last check and the newest
// approval's creation). Approvals younger than After are left to the
// event, and approvals past their deadline to expiry.
//
// So, per replica, with E executions holding pending approvals and Recover
// every S, an execution's end is noticed within After + max(Every,
// ⌈E/PerRun⌉·S) + S even when its event is lost. The defaults, with the
// bot's 30 s sweep (up to 37.5 s with its jitter): at most 10 calls a
// sweep, 20 a minute per replica (a sixth of a second's quota); every
// execution checked every 10 minutes while E ≤ 160, noticed within about
// 13 minutes; with 10,000 executions about every 10½ hours. Replicas do
// not share what they checked, so N replicas make up to N times the calls
// and each keeps the bound on its own.
type ExecutionChecks struct {
	// PerRun bounds the executions one Recover run asks about; 0 turns the
	// checks off.
	PerRun int
	// Every is the least time between two checks of one execution.
	Every time.Duration
	// After leaves approvals younger than this to the status change event.
	After time.Duration
}

// DefaultExecutionChecks: see ExecutionChecks.
var DefaultExecutionChecks = ExecutionChecks{PerRun: 10, Every: 10 * time.Minute, After: 2 * time.Minute}

// checkLog remembers when this process last checked each execution.
type checkLog struct {
	mu sync.Mutex
	at map[string]time.Time
}

// candidate is an execution with pending approvals to check.
type candidate struct {
	arn       string
	approvals []Approval
	knownAt   time.Time // last known running: last check, or newest approval
}

// due picks up to n candidates to check at now, those known running
// longest ago first, skipping any checked less than every ago. Executions
// no longer among the candidates are forgotten.
func (l *checkLog) due(all []candidate, now time.Time, n int, every time.Duration) []candidate {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := make(map[string]bool, len(all))
	var ready []candidate
	for _, c := range all {
		seen[c.arn] = true
		last, checked := l.at[c.arn]
		if checked && now.Sub(last) < every {
			continue
		}
		if checked && last.After(c.knownAt) {
			c.knownAt = last
		}
		ready = append(ready, c)
	}
	for arn := range l.at {
		if !seen[arn] {
			delete(l.at, arn)
		}
	}
	slices.SortFunc(ready, func(a, b candidate) int {
		return cmp.Or(a.knownAt.Compare(b.knownAt), strings.Compare(a.arn, b.arn))
	})
	return ready[:min(len(ready), n)]
}

// mark records a check of the execution at now.
func (l *checkLog) mark(arn string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at[arn] = now
}

// checkExecutions is Recover's last step: it asks about the executions of
// pending that are due a check and closes the approvals of those that
// ended or are gone. It returns ctx's error if ctx ended before it was
// done.
func (s *Service) checkExecutions(ctx context.Context, pending []Approval, now time.Time, rep *RecoverReport) error {
	c := s.ExecutionChecks
	if s.Executions == nil || c.PerRun <= 0 {
		return nil
	}
	var all []candidate
	index := map[string]int{}
	for _, a := range pending {
		if a.ExecutionARN == "" || strings.Contains(a.ExecutionARN, ":express:") || now.Sub(a.CreatedAt) < c.After ||
			(!a.Deadline.IsZero() && !now.Before(a.Deadline.Add(s.ExpiryGrace))) {
			continue // no DescribeExecution for Express executions (which cannot wait for a token anyway)
		}
		i, ok := index[a.ExecutionARN]
		if !ok {
			i = len(all)
			index[a.ExecutionARN] = i
			all = append(all, candidate{arn: a.ExecutionARN})
		}
		all[i].approvals = append(all[i].approvals, a)
		if a.CreatedAt.After(all[i].knownAt) {
			all[i].knownAt = a.CreatedAt
		}
	}
	for _, x := range s.checked.due(all, now, c.PerRun, c.Every) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.checked.mark(x.arn, now)
		got, err := s.Executions.Execution(ctx, x.arn)
		rep.Checked++
		var why Cancellation
		switch {
		case ErrorCode(err) == ENOTFOUND:
			why = Cancellation{Reason: ReasonExecutionNotFound}
		case err != nil:
			rep.Failed++
			rep.CheckErrors = append(rep.CheckErrors, fmt.Errorf("check whether execution %s still runs: %w", x.arn, err))
			continue
		case !got.Status.Ended():
			continue
		default:
			why = Ended(got)
		}
		closed, err := s.cancelAll(ctx, x.approvals, why)
		rep.Closed = append(rep.Closed, closed...)
		if err != nil {
			rep.Failed++
			rep.CheckErrors = append(rep.CheckErrors, err)
		}
	}
	return nil
}
