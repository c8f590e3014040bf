package main

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

const channel = "C0123ABCD"

func newToken() string {
	return "AQCEAAAAKgAAAAMAAAAAAAAAA" + randomHex(200)
}

func requestPayload(t testing.TB, token string, edit func(map[string]any)) []byte {
	t.Helper()
	p := map[string]any{
		"taskToken":       token,
		"executionArn":    "arn:aws:states:us-east-1:123456789012:execution:publish:run-" + token[len(token)-16:],
		"stateName":       "Approve",
		"channel":         channel,
		"approvers":       []string{"U0123ABCD", "S0456ABCD"},
		"title":           "Publish the post for 2026-11-29",
		"summary":         "*mrkdwn* body",
		"fields":          map[string]string{"Theme": "Step Functions"},
		"drafts":          []string{"first draft", "second draft"},
		"revisionPresets": []string{"Shorter"},
		"allowSkip":       true,
		"timeoutSeconds":  3600,
	}
	if edit != nil {
		edit(p)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func invoke(t testing.TB, s *stack, payload []byte) lambdaruntime.Result {
	t.Helper()
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	r, err := s.runtime.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("Invoke: %v\noutput:\n%s", err, s.proc.Output())
	}
	return r
}

// checkNoSecrets stops the process, so that all its output is in, and fails
// if it printed a task token or the bot token.
func checkNoSecrets(t *testing.T, s *stack, tokens ...string) {
	t.Helper()
	s.proc.Stop()
	out := s.proc.Output()
	for _, secret := range append(tokens, s.slack.BotToken()) {
		if strings.Contains(out, secret) {
			t.Errorf("the notifier's output contains a secret:\n%s", out)
		}
	}
}

func TestNotifierPostsOnceAndAnswersRetriesTheSame(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	token := newToken()

	first := invoke(t, s, requestPayload(t, token, nil))
	if first.Failed() {
		t.Fatalf("Invoke failed: %s: %s", first.ErrorType, first.ErrorMessage)
	}
	var resp notifier.Response
	if err := json.Unmarshal(first.Payload, &resp); err != nil {
		t.Fatalf("response %s: %v", first.Payload, err)
	}
	if !strings.HasPrefix(resp.ApprovalID, "ap_") || resp.Channel != channel || resp.TS == "" {
		t.Fatalf("response = %s, want approvalId, channel %s and ts", first.Payload, channel)
	}
	msgs := s.slack.Messages(channel)
	if len(msgs) != 1 || msgs[0].TS != resp.TS {
		t.Fatalf("Slack has %d messages in %s, want 1 with ts %s", len(msgs), channel, resp.TS)
	}
	if strings.Contains(string(msgs[0].Blocks)+msgs[0].Text, token) {
		t.Error("the Slack message contains the task token")
	}

	again := invoke(t, s, requestPayload(t, token, nil))
	if diff := cmp.Diff(first, again, cmpopts.IgnoreFields(lambdaruntime.Result{}, "Duration")); diff != "" {
		t.Errorf("retry result (-first +retry):\n%s", diff)
	}
	if got := len(s.slack.Messages(channel)); got != 1 {
		t.Errorf("Slack has %d messages after the retry, want 1", got)
	}

	stored, err := dynamo.New(harness.Admin, s.table).Get(context.Background(), resp.ApprovalID)
	if err != nil {
		t.Fatalf("read the stored approval: %v", err)
	}
	if stored.TaskToken.Reveal() != token || stored.MessageTS != resp.TS || stored.Channel != channel {
		t.Errorf("stored approval has message %s/%s, want %s/%s and the task token", stored.Channel, stored.MessageTS, channel, resp.TS)
	}
	checkNoSecrets(t, s, token)
}

func TestNotifierReportsInvalidRequestsByName(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	token := newToken()
	tests := []struct {
		name    string
		payload []byte
	}{
		{"missing approvers", requestPayload(t, token, func(p map[string]any) { delete(p, "approvers") })},
		{"bad approver", requestPayload(t, token, func(p map[string]any) { p["approvers"] = []string{"alice"} })},
		{"unknown field", requestPayload(t, token, func(p map[string]any) { p["tilte"] = "x" })},
		{"wrong type", requestPayload(t, token, func(p map[string]any) { p["allowSkip"] = "yes" })},
		{"not JSON", []byte("not json " + token)},
	}
	for _, tt := range tests { // one process: invocations run one at a time
		r := invoke(t, s, tt.payload)
		if r.ErrorType != "InvalidApprovalRequest" {
			t.Errorf("%s: errorType = %q (%s), want InvalidApprovalRequest", tt.name, r.ErrorType, r.ErrorMessage)
		}
		if strings.Contains(r.ErrorMessage, token) {
			t.Errorf("%s: the error message contains the task token", tt.name)
		}
	}
	if got := len(s.slack.Messages(channel)); got != 0 {
		t.Errorf("Slack has %d messages, want none", got)
	}
	checkNoSecrets(t, s, token)
}

func TestNotifierReportsSlackFailuresAndRecovers(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	tokens := []string{newToken(), newToken()}

	t.Run("Slack error code", func(t *testing.T) {
		r := invoke(t, s, requestPayload(t, tokens[0], func(p map[string]any) { p["threadTs"] = "1700000000.000100" }))
		if r.ErrorType != notifier.ErrorSlackPostFailed || !strings.Contains(r.ErrorMessage, "thread_not_found") {
			t.Errorf("result = %s: %s, want SlackPostFailed naming thread_not_found", r.ErrorType, r.ErrorMessage)
		}
	})
	t.Run("outage then retry", func(t *testing.T) {
		token := tokens[1]
		s.slack.FailMethod("chat.postMessage", 1, 503)
		r := invoke(t, s, requestPayload(t, token, nil))
		if r.ErrorType != notifier.ErrorSlackPostFailed {
			t.Fatalf("result = %s: %s, want SlackPostFailed", r.ErrorType, r.ErrorMessage)
		}
		r = invoke(t, s, requestPayload(t, token, nil))
		if r.Failed() {
			t.Fatalf("retry failed: %s: %s", r.ErrorType, r.ErrorMessage)
		}
		if got := len(s.slack.Messages(channel)); got != 1 {
			t.Errorf("Slack has %d messages, want 1", got)
		}
	})
	checkNoSecrets(t, s, tokens...)
}

func TestNotifierStoreOutageIsStoreUnavailable(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	env := s.env(t)
	env["APPROVALS_TABLE"] = "no-such-table-" + randomHex(4)
	s.proc = harness.Start(t, env)
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	if err := s.runtime.WaitNext(ctx); err != nil {
		t.Fatal(err)
	}
	token := newToken()
	r := invoke(t, s, requestPayload(t, token, nil))
	if r.ErrorType != notifier.ErrorStoreUnavailable || !strings.Contains(r.ErrorMessage, "ResourceNotFoundException") {
		t.Errorf("result = %s: %s, want StoreUnavailable naming ResourceNotFoundException", r.ErrorType, r.ErrorMessage)
	}
	if got := len(s.slack.Messages(channel)); got != 0 {
		t.Errorf("Slack has %d messages, want none", got)
	}
	checkNoSecrets(t, s, token)
}

func TestNotifierExitsOnMissingConfiguration(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	for _, name := range []string{"SLACK_BOT_TOKEN", "APPROVALS_TABLE"} {
		t.Run(name, func(t *testing.T) {
			env := maps.Clone(s.env(t))
			delete(env, name)
			p := harness.Start(t, env)
			if code := p.Wait(t); code != 1 {
				t.Errorf("exit code = %d, want 1", code)
			}
			out := p.Output()
			if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, name) || strings.Contains(out, "panic") {
				t.Errorf("output = %q, want one line naming %s", out, name)
			}
			if strings.Contains(out, s.slack.BotToken()) {
				t.Errorf("the output contains the bot token")
			}
		})
	}
}
