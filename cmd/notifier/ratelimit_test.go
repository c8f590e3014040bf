package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/internal/lambdatest"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// Many executions start at once; Slack allows about one message a second
// per channel. Three Lambda instances, which share no memory, wait out a
// short Retry-After once and otherwise fail fast with SlackPostFailed
// naming ratelimited; the Task's Retry (played here by invoking again with
// the same token) gets every request posted, each exactly once.
func TestNotifierUnderSlackRateLimit(t *testing.T) {
	t.Parallel()
	s := newStack(t, fakeslack.Options{RateLimits: map[string]fakeslack.RateLimit{
		"chat.postMessage": {Limit: 60, Per: time.Minute, Burst: 2, PerChannel: true},
	}})
	s.start(t)
	procs := []*lambdatest.Process{s.proc, harness.Start(t, s.env(t)), harness.Start(t, s.env(t))}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const n = 8
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = newToken()
	}
	responses := make([]notifier.Response, n)
	var failures []string
	pending := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for round := 0; len(pending) > 0; round++ {
		if round == 10 {
			t.Fatalf("%d requests still not posted after 10 rounds of retries", len(pending))
		}
		results := make([]lambdaruntime.Result, n)
		var wg sync.WaitGroup
		for _, i := range pending {
			wg.Go(func() {
				r, err := s.runtime.Invoke(ctx, requestPayload(t, tokens[i], func(p map[string]any) {
					p["executionArn"] = fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:demo:run-%d", i)
					p["stateName"] = "Approve"
				}))
				if err != nil {
					t.Errorf("Invoke: %v", err)
				}
				results[i] = r
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		var again []int
		for _, i := range pending {
			r := results[i]
			switch {
			case !r.Failed():
				if err := json.Unmarshal(r.Payload, &responses[i]); err != nil {
					t.Fatalf("response %s: %v", r.Payload, err)
				}
			case r.ErrorType == notifier.ErrorSlackPostFailed:
				failures = append(failures, r.ErrorMessage)
				again = append(again, i)
			default:
				t.Fatalf("request %d: %s: %s", i, r.ErrorType, r.ErrorMessage)
			}
		}
		pending = again
	}

	if len(failures) == 0 {
		t.Error("no invocation failed fast: the test did not exercise the Task's Retry")
	}
	for _, msg := range failures {
		if !strings.Contains(msg, "ratelimited") || !strings.Contains(msg, "retry after 1s") {
			t.Errorf("SlackPostFailed %q does not name ratelimited and the Retry-After", msg)
		}
	}
	msgs := s.slack.Messages(channel)
	if len(msgs) != n {
		t.Errorf("Slack has %d messages for %d requests", len(msgs), n)
	}
	seen := map[string]int{}
	for _, m := range msgs {
		for _, r := range responses {
			if strings.Contains(string(m.Blocks), r.ApprovalID) {
				seen[r.ApprovalID]++
			}
		}
	}
	for i, r := range responses {
		if r.TS == "" || seen[r.ApprovalID] != 1 {
			t.Errorf("request %d (%s) is in %d messages, want 1", i, r.ApprovalID, seen[r.ApprovalID])
		}
	}
	var out strings.Builder
	for _, p := range procs {
		p.Stop()
		out.WriteString(p.Output())
	}
	if !strings.Contains(out.String(), `"rate_limit_wait"`) {
		t.Errorf("no instance waited out a short Retry-After:\n%s", out.String())
	}
	for _, secret := range append(tokens, s.slack.BotToken()) {
		if strings.Contains(out.String(), secret) {
			t.Fatalf("an instance's output contains a secret:\n%s", out.String())
		}
	}
}
