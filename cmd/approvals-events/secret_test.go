package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/fakesecrets"
)

// The deployed function reads the bot token from the secret at cold start
// (through the SDK's standard endpoint override) and again once when Slack
// refuses it, and writes its EMF lines to stdout, named after the
// function.
func TestEventsReadsTheBotTokenFromTheSecret(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	fake, err := fakesecrets.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	const stale = "xoxb-stale-rotated-away"
	arn := fake.Put("approvals/slack", `{"botToken":"`+stale+`","appToken":"xapp-1"}`)
	env := s.env(t)
	delete(env, "SLACK_BOT_TOKEN")
	env["SLACK_SECRET_ARN"] = arn
	env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = fake.URL
	env["AWS_LAMBDA_FUNCTION_NAME"] = "approvals-events"
	s.start(t, env)
	if n := fake.Reads(); n != 1 {
		t.Fatalf("%d reads of the secret at cold start, want 1", n)
	}
	fake.Put("approvals/slack", `{"botToken":"`+s.slack.BotToken()+`","appToken":"xapp-1"}`)

	const execution = "arn:aws:states:us-east-1:123456789012:execution:publish:stopped"
	a := s.request(t, execution)
	if r := s.invoke(t, statusChange(t, execution, "ABORTED", time.Now())); r.Failed() {
		t.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
	}
	if m, _ := s.slack.Message(a.Channel, a.MessageTS); m.Updates != 1 || fake.Reads() != 2 {
		t.Errorf("message updated %d times after %d reads; want once, the secret read again once", m.Updates, fake.Reads())
	}
	s.checkNoSecrets(t) // stops the process: all output is in
	if strings.Contains(s.proc.Output(), stale) {
		t.Error("the output holds the stale token")
	}

	lines := strings.Split(strings.TrimSpace(s.proc.Stdout()), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout has %d lines, want the invocation's two EMF lines:\n%s", len(lines), s.proc.Stdout())
	}
	for i, want := range []map[string]any{
		{"Function": "approvals-events", "MalformedEvents": 0.0, "SlackFailures": 0.0, "StoreFailures": 0.0},
		{"Function": "approvals-events", "Reason": "ABORTED", "RequestsClosed": 1.0},
	} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &doc); err != nil || doc["_aws"] == nil {
			t.Fatalf("line %d is not EMF: %s", i+1, lines[i])
		}
		for k, v := range want {
			if doc[k] != v {
				t.Errorf("line %d: %s = %v, want %v", i+1, k, doc[k], v)
			}
		}
	}
}
