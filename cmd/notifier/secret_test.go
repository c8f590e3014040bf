package main

import (
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/fakesecrets"
)

// staleToken is a bot token Slack no longer accepts (rotated away).
const staleToken = "xoxb-stale-rotated-away"

// secretEnv is the stack's environment with the bot token in a secret of
// a fake Secrets Manager, reached through the SDK's standard endpoint
// override, instead of SLACK_BOT_TOKEN.
func secretEnv(t *testing.T, s *stack, fake *fakesecrets.Server, secretARN string) map[string]string {
	t.Helper()
	env := s.env(t)
	delete(env, "SLACK_BOT_TOKEN")
	env["SLACK_SECRET_ARN"] = secretARN
	env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = fake.URL
	return env
}

func startSecrets(t *testing.T) *fakesecrets.Server {
	t.Helper()
	fake, err := fakesecrets.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	return fake
}

// The deployed notifier reads the bot token from the secret once, at cold
// start; when Slack refuses it (the secret was rotated since), it reads
// the secret once more and posts the request once with the new token.
func TestNotifierReadsTheBotTokenFromTheSecret(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	fake := startSecrets(t)
	arn := fake.Put("approvals/slack", `{"botToken":"`+staleToken+`","appToken":"xapp-1"}`)
	s.proc = harness.Start(t, secretEnv(t, s, fake, arn))
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	if err := s.runtime.WaitNext(ctx); err != nil {
		t.Fatalf("the notifier did not start: %v\n%s", err, s.proc.Output())
	}
	if n := fake.Reads(); n != 1 {
		t.Fatalf("%d reads of the secret at cold start, want 1", n)
	}
	fake.Put("approvals/slack", `{"botToken":"`+s.slack.BotToken()+`","appToken":"xapp-1"}`)

	token := newToken()
	r := invoke(t, s, requestPayload(t, token, nil))
	if r.Failed() {
		t.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
	}
	if got := len(s.slack.Messages(channel)); got != 1 || fake.Reads() != 2 {
		t.Errorf("%d messages after %d reads; want one message, the secret read again once", got, fake.Reads())
	}
	if r := invoke(t, s, requestPayload(t, newToken(), nil)); r.Failed() || fake.Reads() != 2 {
		t.Errorf("second invocation: %s %s after %d reads; want it posted with the cached token", r.ErrorType, r.ErrorMessage, fake.Reads())
	}
	checkNoSecrets(t, s, token, staleToken)
}

// A secret that cannot be read stops the cold start with one line that
// names the secret and what to do.
func TestNotifierExitsWhenTheSecretCannotBeRead(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tests := []struct {
		name   string
		setup  func(fake *fakesecrets.Server) string
		want   string
		secret string
	}{
		{"not found", func(*fakesecrets.Server) string {
			return "arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/nope-AbCdEf"
		}, "not found (check SLACK_SECRET_ARN", ""},
		{"access denied", func(fake *fakesecrets.Server) string {
			arn := fake.Put("approvals/slack", `{"botToken":"xoxb-in-the-secret"}`)
			fake.Refuse("AccessDeniedException", "User: arn:aws:sts::123456789012:assumed-role/notifier/x is not authorized to perform: secretsmanager:GetSecretValue")
			return arn
		}, "needs secretsmanager:GetSecretValue on it", "xoxb-in-the-secret"},
		{"no botToken", func(fake *fakesecrets.Server) string {
			return fake.Put("approvals/slack", `{"appToken":"xapp-in-the-secret"}`)
		}, "is not JSON with the key botToken", "xapp-in-the-secret"},
		{"both variables", func(fake *fakesecrets.Server) string {
			return fake.Put("approvals/slack", `{"botToken":"xoxb-in-the-secret"}`)
		}, "not both", "xoxb-in-the-secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := startSecrets(t)
			arn := tt.setup(fake)
			env := secretEnv(t, s, fake, arn)
			if tt.name == "both variables" {
				env["SLACK_BOT_TOKEN"] = s.slack.BotToken()
			}
			p := harness.Start(t, env)
			if code := p.Wait(t); code != 1 {
				t.Errorf("exit code = %d, want 1", code)
			}
			out := p.Output()
			if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, tt.want) || strings.Contains(out, "panic") {
				t.Errorf("output = %q, want one line with %q", out, tt.want)
			}
			if tt.name != "both variables" && !strings.Contains(out, arn) {
				t.Errorf("output = %q, want it to name the secret", out)
			}
			if strings.Contains(out, s.slack.BotToken()) || (tt.secret != "" && strings.Contains(out, tt.secret)) {
				t.Errorf("the output holds a token: %q", out)
			}
		})
	}
}
