package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// The real binary, built once, run the way ECS runs it.
var (
	botBinary   string
	ddbEndpoint string
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "approvals-bot-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	botBinary = filepath.Join(dir, "approvals-bot")
	if out, err := exec.Command("go", "build", "-o", botBinary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build approvals-bot: %v\n%s", err, out)
		return 1
	}
	ddb, err := dynamolocal.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ddb.Close()
	ddbEndpoint = ddb.Endpoint()
	return m.Run()
}

func awsEnv(table string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"APPROVALS_TABLE=" + table,
		"AWS_ENDPOINT_URL_DYNAMODB=" + ddbEndpoint,
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
	}
}

func TestMissingSettingIsOneClearLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{name: "no table", env: []string{"SLACK_BOT_TOKEN=xoxb-1", "SLACK_APP_TOKEN=xapp-1"}, want: "approvals-bot: APPROVALS_TABLE is required"},
		{name: "no bot token", env: []string{"APPROVALS_TABLE=t", "SLACK_APP_TOKEN=xapp-1"}, want: "approvals-bot: SLACK_BOT_TOKEN is required"},
		{name: "no app token", env: []string{"APPROVALS_TABLE=t", "SLACK_BOT_TOKEN=xoxb-1"}, want: "approvals-bot: SLACK_APP_TOKEN is required"},
		{name: "unknown flag", args: []string{"-create-tables"}, want: "flag provided but not defined: -create-tables"},
		{name: "export without a start", env: []string{"APPROVALS_TABLE=t"}, args: []string{"-export-audit"}, want: "approvals-bot: -export-audit needs -since, an RFC 3339 time"},
		{name: "export from a bad time", env: []string{"APPROVALS_TABLE=t"}, args: []string{"-export-audit", "-since", "yesterday"}, want: `approvals-bot: -since must be an RFC 3339 time such as 2026-11-01T00:00:00Z, not "yesterday"`},
		{name: "export to a bad time", env: []string{"APPROVALS_TABLE=t"}, args: []string{"-export-audit", "-since", "2026-11-01T00:00:00Z", "-until", "2026-13-01"}, want: `approvals-bot: -until must be an RFC 3339 time`},
		{name: "export backwards", env: []string{"APPROVALS_TABLE=t"}, args: []string{"-export-audit", "-since", "2026-11-02T00:00:00Z", "-until", "2026-11-01T00:00:00Z"}, want: "approvals-bot: -since (2026-11-02T00:00:00Z) must be before -until (2026-11-01T00:00:00Z)"},
		{name: "export without a table", args: []string{"-export-audit", "-since", "2026-11-01T00:00:00Z"}, want: "approvals-bot: APPROVALS_TABLE is required"},
		{name: "since without export", env: []string{"APPROVALS_TABLE=t"}, args: []string{"-since", "2026-11-01T00:00:00Z"}, want: "approvals-bot: -since and -until go with -export-audit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(botBinary, tt.args...)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, tt.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 && exit.ExitCode() != 2 {
				t.Fatalf("err = %v, want exit status 1 (2 for flags); output:\n%s", err, out)
			}
			if !strings.Contains(string(out), tt.want) || strings.Contains(string(out), "panic") {
				t.Errorf("output = %q, want %q", out, tt.want)
			}
			if tt.args == nil && strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
				t.Errorf("output has more than one line: %q", out)
			}
		})
	}
}

func TestCreateTableIsIdempotent(t *testing.T) {
	t.Parallel()
	table := fmt.Sprintf("bot-create-%d", time.Now().UnixNano())
	for i := range 2 {
		cmd := exec.Command(botBinary, "-create-table")
		cmd.Env = awsEnv(table) // no Slack tokens: not needed
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, out)
		}
	}
	client, err := dynamolocal.Client(t.Context(), ddbEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range desc.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(i.IndexName))
	}
	if slices.Sort(names); !slices.Equal(names, []string{dynamo.ExecutionIndex, dynamo.QueueIndex}) {
		t.Errorf("indexes %v, want the queue and execution indexes", names)
	}
	ttl, err := client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil || ttl.TimeToLiveDescription == nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "purgeAt" {
		t.Errorf("TTL = %+v, %v; want it on purgeAt", ttl, err)
	}
}

// The binary decides a click end to end, then drains and exits on SIGTERM.
func TestBinaryServesClicksAndStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stack, err := devstack.Start(ctx, devstack.Options{DynamoDBEndpoint: ddbEndpoint, Replicas: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()

	stderr := &syncbuf.Buffer{}
	cmd := exec.Command(botBinary)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, stack.Env()...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	if err := stack.Slack.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("the bot never connected: %v\n%s", err, stderr)
	}

	p, err := stack.Request(ctx, "binary", map[string]any{
		"channel": "C0BIN", "approvers": []string{"U0ALICE"}, "title": "Ship it?",
	})
	if err != nil {
		t.Fatal(err)
	}
	id, err := stack.Slack.Click("U0ALICE", p.Response.Channel, p.Response.TS, "approve", p.Response.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Slack.WaitAck(ctx, id); err != nil {
		t.Fatal(err)
	}
	o, err := stack.WaitResumed(ctx, p.Token)
	if err != nil || o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v, %v\n%s", o, err, stderr)
	}

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGTERM\n%s", stderr)
	}
	t.Logf("exited %s after SIGTERM", time.Since(start).Round(time.Millisecond))

	logs := stderr.String()
	for _, want := range []string{`"approval_id":"` + p.Response.ApprovalID, `"slack_user":"U0ALICE"`, `"envelope_id"`, `"execution_arn"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
	for _, secret := range []string{p.Token, stack.Slack.BotToken(), stack.Slack.AppToken()} {
		if strings.Contains(logs, secret) {
			t.Errorf("a secret (%.10s…) is in the logs", secret)
		}
	}
}
