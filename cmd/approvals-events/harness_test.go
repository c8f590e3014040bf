package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/internal/lambdatest"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// Shared by every test: the binary, built once, and one DynamoDB Local
// (each test gets its own table).
var harness lambdatest.Harness

func TestMain(m *testing.M) { os.Exit(lambdatest.Main(m, "approvals-events", &harness)) }

// stack is one function process wired to its own table, fake Slack and
// Runtime API emulator, and the services a test seeds requests with.
type stack struct {
	table   string
	slack   *fakeslack.Server
	runtime *lambdaruntime.Server
	proc    *lambdatest.Process
	svc     *workflow.Service
	poster  *chat.Poster
	tokens  []string
}

func newStack(t *testing.T) *stack {
	t.Helper()
	s := &stack{table: "approvals-" + randomHex(6)}
	if err := dynamo.CreateTable(t.Context(), harness.Admin, s.table); err != nil {
		t.Fatalf("create table: %v", err)
	}
	var err error
	if s.slack, err = fakeslack.Start(fakeslack.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.slack.Close)
	if s.runtime, err = lambdaruntime.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.runtime.Close() })
	s.svc = workflow.NewService(dynamo.New(harness.Admin, s.table), nil, nil)
	s.poster = chat.NewPoster(slack.New(s.slack.BotToken(), slack.OptionAPIURL(s.slack.APIURL())))
	return s
}

// env is the function's environment. HOME is empty so no shared AWS
// configuration of the machine running the tests is read.
func (s *stack) env(t *testing.T) map[string]string {
	return map[string]string{
		"AWS_LAMBDA_RUNTIME_API":    s.runtime.Addr(),
		"APPROVALS_TABLE":           s.table,
		"AWS_ENDPOINT_URL_DYNAMODB": harness.DDB.Endpoint(),
		"AWS_REGION":                "us-east-1",
		"AWS_ACCESS_KEY_ID":         "local",
		"AWS_SECRET_ACCESS_KEY":     "local",
		"AWS_EC2_METADATA_DISABLED": "true",
		"SLACK_BOT_TOKEN":           s.slack.BotToken(),
		"SLACK_API_URL":             s.slack.APIURL(),
		"LOG_LEVEL":                 "debug",
		"HOME":                      t.TempDir(),
	}
}

// start runs the function and waits until it polls for an invocation.
func (s *stack) start(t *testing.T, env map[string]string) {
	t.Helper()
	s.proc = harness.Start(t, env)
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	if err := s.runtime.WaitNext(ctx); err != nil {
		t.Fatalf("the function did not poll for an invocation: %v\noutput:\n%s", err, s.proc.Output())
	}
}

// request stores a pending approval of the execution and posts its
// message, as the notifier does.
func (s *stack) request(t *testing.T, executionARN string) workflow.Approval {
	t.Helper()
	token := "AQCEAAAAKgAAAAMAAAAAAAAAA" + randomHex(100)
	s.tokens = append(s.tokens, token)
	r := workflow.Request{
		TaskToken: workflow.TaskToken(token), ExecutionARN: executionARN, StateName: "Approve",
		Channel: "C0123ABCD", Approvers: []string{"U0123ABCD"}, Title: "Publish the post",
	}
	ctx := t.Context()
	a, _, err := s.svc.Request(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	ch, ts, err := s.poster.PostRequest(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = s.svc.RecordMessage(ctx, a.ID, ch, ts); err != nil {
		t.Fatal(err)
	}
	return a
}

func (s *stack) invoke(t *testing.T, payload []byte) lambdaruntime.Result {
	t.Helper()
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	r, err := s.runtime.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("Invoke: %v\noutput:\n%s", err, s.proc.Output())
	}
	return r
}

// checkNoSecrets stops the process, so all its output is in, and fails if
// it printed a task token or the bot token.
func (s *stack) checkNoSecrets(t *testing.T) {
	t.Helper()
	s.proc.Stop()
	out := s.proc.Output()
	for _, secret := range append(s.tokens, s.slack.BotToken()) {
		if strings.Contains(out, secret) {
			t.Errorf("the function's output contains a secret:\n%s", out)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
