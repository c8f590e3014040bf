package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/internal/lambdatest"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
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
	proc    *process
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
	s.proc = startProcess(t, env)
	ctx, cancel := s.proc.context(30 * time.Second)
	defer cancel()
	if err := s.runtime.WaitNext(ctx); err != nil {
		t.Fatalf("the function did not poll for an invocation: %v\noutput:\n%s", err, s.proc.output())
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
	ctx, cancel := s.proc.context(30 * time.Second)
	defer cancel()
	r, err := s.runtime.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("Invoke: %v\noutput:\n%s", err, s.proc.output())
	}
	return r
}

// checkNoSecrets stops the process, so all its output is in, and fails if
// it printed a task token or the bot token.
func (s *stack) checkNoSecrets(t *testing.T) {
	t.Helper()
	s.proc.stop()
	out := s.proc.output()
	for _, secret := range append(s.tokens, s.slack.BotToken()) {
		if strings.Contains(out, secret) {
			t.Errorf("the function's output contains a secret:\n%s", out)
		}
	}
}

// process is a running function binary.
type process struct {
	cmd    *exec.Cmd
	out    *syncbuf.Buffer // stdout and stderr
	stdout *syncbuf.Buffer
	exited chan struct{}
}

func startProcess(t *testing.T, env map[string]string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(harness.Binary), out: &syncbuf.Buffer{}, stdout: &syncbuf.Buffer{}, exited: make(chan struct{})}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = io.MultiWriter(p.out, p.stdout), p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start the function: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.stop)
	return p
}

func (p *process) stop() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// wait waits for the process to exit by itself and returns its exit code.
func (p *process) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the function did not exit; output:\n%s", p.output())
	}
	return p.cmd.ProcessState.ExitCode()
}

// context returns a context that ends after d or when the process exits.
func (p *process) context(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

func (p *process) output() string { return p.out.String() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
