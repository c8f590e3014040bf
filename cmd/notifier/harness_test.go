package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/internal/lambdatest"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// Shared by every test: the binary, built once, and one DynamoDB Local
// (each test gets its own table).
var harness lambdatest.Harness

func TestMain(m *testing.M) { os.Exit(lambdatest.Main(m, "notifier", &harness)) }

// stack is one notifier process wired to its own table, fake Slack and
// Runtime API emulator.
type stack struct {
	table   string
	slack   *fakeslack.Server
	sfn     *stepfunctionstest.Server
	runtime *lambdaruntime.Server
	proc    *lambdatest.Process
}

// newStack starts the fakes and creates a table; start runs the binary.
// slack, if given, configures the fake Slack.
func newStack(tb testing.TB, slack ...fakeslack.Options) *stack {
	tb.Helper()
	ctx := context.Background()
	s := &stack{table: "approvals-" + randomHex(6)}
	if err := dynamo.CreateTable(ctx, harness.Admin, s.table); err != nil {
		tb.Fatalf("create table: %v", err)
	}
	var opts fakeslack.Options
	if len(slack) > 0 {
		opts = slack[0]
	}
	var err error
	if s.slack, err = fakeslack.Start(opts); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.slack.Close)
	s.sfn = stepfunctionstest.NewServer()
	tb.Cleanup(s.sfn.Close)
	if s.runtime, err = lambdaruntime.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.runtime.Close() })
	return s
}

// env is the notifier's environment in the stack. HOME is empty so no
// shared AWS configuration of the machine running the tests is read.
func (s *stack) env(tb testing.TB) map[string]string {
	tb.Helper()
	return map[string]string{
		"AWS_LAMBDA_RUNTIME_API":    s.runtime.Addr(),
		"APPROVALS_TABLE":           s.table,
		"AWS_ENDPOINT_URL_DYNAMODB": harness.DDB.Endpoint(),
		"AWS_ENDPOINT_URL_SFN":      s.sfn.URL(),
		"AWS_REGION":                "us-east-1",
		"AWS_ACCESS_KEY_ID":         "local",
		"AWS_SECRET_ACCESS_KEY":     "local",
		"AWS_EC2_METADATA_DISABLED": "true",
		"SLACK_BOT_TOKEN":           s.slack.BotToken(),
		"SLACK_API_URL":             s.slack.APIURL(),
		"HOME":                      tb.TempDir(),
		"AWS_LAMBDA_FUNCTION_NAME":  "approvals-notifier",
	}
}

// start runs the notifier and waits until it polls for its first
// invocation.
func (s *stack) start(tb testing.TB) {
	tb.Helper()
	s.proc = harness.Start(tb, s.env(tb))
	ctx, cancel := s.proc.Context(30 * time.Second)
	defer cancel()
	if err := s.runtime.WaitNext(ctx); err != nil {
		tb.Fatalf("the notifier did not poll for an invocation: %v\noutput:\n%s", err, s.proc.Output())
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
