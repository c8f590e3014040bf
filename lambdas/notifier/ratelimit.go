package notifier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Lambda instances share no memory, so a Slack 429 is waited for in the
// invocation only when the wait is short and fits well inside the time the
// invocation has left; otherwise SlackPostFailed comes back at once and the
// Task's Retry does the waiting.
const (
	// maxPostWait is the longest Retry-After waited for.
	maxPostWait = 10 * time.Second
	// postReserve is kept for the second post and recording it.
	postReserve = 5 * time.Second
)

// rateLimited is implemented by a Poster error that is Slack's 429;
// RetryAfter is Slack's Retry-After.
type rateLimited interface {
	RetryAfter() time.Duration
}

func retryAfter(err error) (time.Duration, bool) {
	var rl rateLimited
	if errors.As(err, &rl) && rl.RetryAfter() > 0 {
		return rl.RetryAfter(), true
	}
	return 0, false
}

// post posts a's request. A 429 is waited for once, when its Retry-After
// is at most maxPostWait and leaves the invocation twice that plus
// postReserve; a second 429, or one that does not fit, fails at once.
func (h *Handler) post(ctx context.Context, a workflow.Approval, line *invocationLog) (channel, ts string, err error) {
	channel, ts, err = h.poster.PostRequest(ctx, a)
	d, limited := retryAfter(err)
	if !limited || !h.fits(ctx, d) {
		return channel, ts, err
	}
	line.rateLimitWait = d
	if h.sleep(ctx, d) != nil {
		return "", "", err
	}
	return h.poster.PostRequest(ctx, a)
}

func (h *Handler) fits(ctx context.Context, d time.Duration) bool {
	if d > maxPostWait {
		return false
	}
	deadline, ok := ctx.Deadline()
	return !ok || deadline.Sub(h.now()) >= 2*d+postReserve
}

// postFailed is the SlackPostFailed for err, naming Slack's ratelimited and
// its Retry-After when it was a 429.
func postFailed(a workflow.Approval, err error, token workflow.TaskToken) *SlackPostFailed {
	msg := fmt.Sprintf("could not post approval %s to Slack channel %s: %v", a.ID, a.Channel, err)
	if d, limited := retryAfter(err); limited {
		msg = fmt.Sprintf("could not post approval %s to Slack channel %s: ratelimited, Slack asks to retry after %s (let the Task's Retry wait)", a.ID, a.Channel, d)
	}
	return &SlackPostFailed{ApprovalID: a.ID, Message: redact(msg, token), Err: err}
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
