package notifier

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// demoPayload is a request from the execution the task's tests use.
func demoPayload(t *testing.T) []byte {
	t.Helper()
	return payload(t, func(p map[string]any) {
		p["executionArn"] = "arn:aws:states:us-east-1:123456789012:execution:demo:run-1"
		p["stateName"] = "Approve"
	})
}

// slack429 is a poster error shaped like slackbot's: Slack's code in the
// text and the Retry-After behind RetryAfter.
type slack429 time.Duration

func (e slack429) Error() string {
	return fmt.Sprintf("slack chat.postMessage: ratelimited (retry after %s)", time.Duration(e))
}
func (e slack429) RetryAfter() time.Duration { return time.Duration(e) }

func TestHandleWaitsOnceForAShortRetryAfter(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name      string
		fails     []error
		left      time.Duration // until the invocation's deadline; 0: no deadline
		wantWaits []time.Duration
		wantErr   string // "" for a post
	}{
		{name: "short wait, then posted", fails: []error{slack429(time.Second)}, left: 30 * time.Second,
			wantWaits: []time.Duration{time.Second}},
		{name: "no deadline", fails: []error{slack429(3 * time.Second)},
			wantWaits: []time.Duration{3 * time.Second}},
		{name: "a second 429 fails at once", fails: []error{slack429(time.Second), slack429(2 * time.Second)}, left: 30 * time.Second,
			wantWaits: []time.Duration{time.Second}, wantErr: "ratelimited, Slack asks to retry after 2s"},
		{name: "longer than maxPostWait", fails: []error{slack429(30 * time.Second)}, left: 15 * time.Minute,
			wantErr: "ratelimited, Slack asks to retry after 30s"},
		{name: "does not fit the time left", fails: []error{slack429(3 * time.Second)}, left: 10 * time.Second,
			wantErr: "ratelimited, Slack asks to retry after 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.poster.fails = tt.fails
			var waits []time.Duration
			f.handler.now = func() time.Time { return t0 }
			f.handler.sleep = func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}
			ctx := context.Background()
			if tt.left > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, t0.Add(tt.left))
				defer cancel()
			}
			_, err := f.handler.Handle(ctx, demoPayload(t))
			if fmt.Sprint(waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waited %v, want %v", waits, tt.wantWaits)
			}
			if tt.wantErr == "" {
				if err != nil || f.poster.count() != 1 {
					t.Fatalf("Handle = %v with %d posts, want one post", err, f.poster.count())
				}
				if !strings.Contains(f.logs.String(), `"rate_limit_wait"`) {
					t.Errorf("the log line does not show the wait: %s", f.logs)
				}
				return
			}
			if got := lambdaErrorType(err); got != ErrorSlackPostFailed || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Handle error = %v (%s), want SlackPostFailed saying %q", err, got, tt.wantErr)
			}
			if strings.Contains(err.Error(), token) {
				t.Error("the error shows the task token")
			}
			f.poster.fails = nil
			if _, err := f.handler.Handle(context.Background(), demoPayload(t)); err != nil || f.poster.count() != 1 {
				t.Errorf("the Task's retry: %v with %d posts, want exactly one post", err, f.poster.count())
			}
		})
	}
}

func TestHandleStopsWaitingWhenTheInvocationEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.poster.fails = []error{slack429(2 * time.Second)}
	ctx, cancel := context.WithCancel(context.Background())
	f.handler.sleep = func(ctx context.Context, d time.Duration) error {
		cancel() // the invocation is cut short mid-wait
		return sleepCtx(ctx, d)
	}
	_, err := f.handler.Handle(ctx, demoPayload(t))
	if lambdaErrorType(err) != ErrorSlackPostFailed || !strings.Contains(err.Error(), "retry after 2s") {
		t.Fatalf("Handle = %v, want SlackPostFailed for the 429", err)
	}
	if f.poster.count() != 0 {
		t.Error("posted after the invocation ended")
	}
}
