package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// syncBuffer collects what run logs.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// started is run in the background: the address it printed and its result.
type started struct {
	url    string
	cancel context.CancelFunc
	done   chan error
	logs   *syncBuffer
}

// startRun runs run with args plus -addr 127.0.0.1:0 and reads the
// address it prints.
func startRun(t *testing.T, args ...string) *started {
	t.Helper()
	return startRunEnv(t, nil, args...)
}

// startRunEnv is startRun with environment variables besides LOG_LEVEL=debug.
func startRunEnv(t *testing.T, vars map[string]string, args ...string) *started {
	t.Helper()
	all := map[string]string{"LOG_LEVEL": "debug"}
	for k, v := range vars {
		all[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdoutR, stdoutW := io.Pipe()
	s := &started{cancel: cancel, done: make(chan error, 1), logs: &syncBuffer{}}
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), env(all), stdoutW, s.logs)
		stdoutW.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdoutR)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdoutR)
	}()
	select {
	case line, ok := <-lines:
		url, found := strings.CutPrefix(line, "sfn-local listening on ")
		if !ok || !found {
			t.Fatalf("run printed %q, not the address; logs:\n%s", line, s.logs)
		}
		s.url = url
	case err := <-s.done:
		s.done <- err
		t.Fatalf("run returned %v before listening; logs:\n%s", err, s.logs)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not print its address")
	}
	return s
}

func newClient(url string) *sfn.Client {
	return sfn.New(sfn.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      connectionRetryer(),
	})
}

func TestRunServesDefinitionsAndStops(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "greet.asl.json"), `{"StartAt":"Hello","States":{"Hello":{"Type":"Pass","Result":{"greeting":"hello"},"End":true}}}`)
	writeFile(t, filepath.Join(dir, "approval.asl.json"), `{"StartAt":"Wait","States":{"Wait":{"Type":"Wait","Seconds":60,"End":true}}}`)
	writeFile(t, filepath.Join(dir, "notes.json"), `not a definition`)

	s := startRun(t, "-definitions", dir, "-region", "eu-west-1", "-account", "210987654321")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := newClient(s.url)

	list, err := client.ListStateMachines(ctx, &sfn.ListStateMachinesInput{})
	if err != nil {
		t.Fatalf("ListStateMachines: %v", err)
	}
	var names []string
	for _, m := range list.StateMachines {
		names = append(names, aws.ToString(m.Name))
	}
	if strings.Join(names, ",") != "approval,greet" {
		t.Fatalf("state machines = %v, want approval and greet", names)
	}
	greet := "arn:aws:states:eu-west-1:210987654321:stateMachine:greet"
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(greet), Name: aws.String("first")})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	x := pollUntilDone(ctx, t, client, aws.ToString(started.ExecutionArn))
	if x.Status != types.ExecutionStatusSucceeded || aws.ToString(x.Output) != `{"greeting":"hello"}` {
		t.Errorf("execution = %s %q", x.Status, aws.ToString(x.Output))
	}
	waiting, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(strings.Replace(greet, "greet", "approval", 1))})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}

	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err
		if err != nil {
			t.Errorf("run = %v, want nil after cancel", err)
		}
	case <-time.After(shutdownTimeout + 5*time.Second):
		t.Fatal("run did not return after cancel")
	}
	if _, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: waiting.ExecutionArn}); err == nil {
		t.Error("the server still answers after run returned")
	}
	logs := s.logs.String()
	for _, want := range []string{`"msg":"state machine created"`, `"operation":"StartExecution"`, `"msg":"shutting down"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

// TestRunServesShippedDefinitions starts sfn-local on the shipped
// workflows, as `make sfn-local` does: their approvers and channel come
// from -substitute, filled in as CloudFormation's DefinitionSubstitutions
// fill them.
func TestRunServesShippedDefinitions(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-definitions", filepath.Join("..", "..", "workflow", "definitions"),
		"-substitute", "Channel=C0PUBLISH", "-substitute", "Approvers=U0ALICE,S0EDITORS", "-substitute", "EscalationApprovers=S0LEADS",
		"-substitute", "NotifierFunctionArn=approvals-notifier", "-substitute", "DraftAgentFunctionArn=draft-agent", "-substitute", "PublishFunctionArn=publish",
		"-substitute", "FileRejectionFunctionArn=file-rejection", "-substitute", "ProcessItemFunctionArn=process-item",
		"-substitute", "BatchBucket=approvals-batch", "-substitute", "WorkerCluster=local", "-substitute", "WorkerTaskDefinition=process-item",
		"-substitute", "WorkerContainer=worker", "-substitute", "WorkerSubnets=subnet-local", "-substitute", "WorkerSecurityGroups=sg-local")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := newClient(s.url)
	list, err := client.ListStateMachines(ctx, &sfn.ListStateMachinesInput{})
	if err != nil {
		t.Fatalf("ListStateMachines: %v", err)
	}
	if len(list.StateMachines) != len(definitions.Names()) {
		t.Fatalf("%d state machines, want the %d shipped ones", len(list.StateMachines), len(definitions.Names()))
	}
	for _, m := range list.StateMachines {
		d, err := client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: m.StateMachineArn})
		if err != nil {
			t.Fatalf("DescribeStateMachine: %v", err)
		}
		def := aws.ToString(d.Definition)
		if !strings.Contains(def, `"channel": "C0PUBLISH"`) || !strings.Contains(def, "('U0ALICE,S0EDITORS', ',')") || strings.Contains(def, "${") {
			t.Errorf("%s was not deployed with the substitutions:\n%s", aws.ToString(m.Name), def)
		}
	}

	var stdout, stderr syncBuffer
	err = run(ctx, []string{"-addr", "127.0.0.1:0", "-definitions", filepath.Join("..", "..", "workflow", "definitions")}, env(nil), &stdout, &stderr)
	const want = "approve-or-escalate.asl.json: substitute the definition's placeholders: ${Approvers}, ${Channel}, ${DraftAgentFunctionArn}, ${EscalationApprovers}, " +
		"${FileRejectionFunctionArn}, ${NotifierFunctionArn}, ${PublishFunctionArn} have no value: " +
		"pass -substitute Approvers=… -substitute Channel=… -substitute DraftAgentFunctionArn=… -substitute EscalationApprovers=… " +
		"-substitute FileRejectionFunctionArn=… -substitute NotifierFunctionArn=… -substitute PublishFunctionArn=…"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run without -substitute = %v, want an error naming the placeholders and the flag", err)
	}
}

// pollUntilDone describes an execution until it leaves RUNNING.
func pollUntilDone(ctx context.Context, t *testing.T, client *sfn.Client, arn string) *sfn.DescribeExecutionOutput {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		x, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		if err != nil {
			t.Fatalf("DescribeExecution: %v", err)
		}
		if x.Status != types.ExecutionStatusRunning {
			return x
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("execution %s still RUNNING", arn)
		}
	}
}

func TestRunRefusesBadStarts(t *testing.T) {
	t.Parallel()
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "broken.asl.json"), `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`)
	placeholders := t.TempDir()
	writeFile(t, filepath.Join(placeholders, "approval.asl.json"), `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":{"channel":"${Channel}","approvers":"${Approvers}"},"End":true}}}`)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"broken definition", []string{"-definitions", bad}, nil, "broken.asl.json"},
		{"missing definitions directory", []string{"-definitions", filepath.Join(bad, "nope")}, nil, "definitions directory"},
		{"missing mock config", nil, map[string]string{"SFN_MOCK_CONFIG": filepath.Join(bad, "nope.json")}, "mock config"},
		{"bad account", []string{"-account", "12"}, nil, "12-digit"},
		{"bad log level", nil, map[string]string{"LOG_LEVEL": "loud"}, "log level"},
		{"no finished executions kept", []string{"-max-finished-executions", "0"}, nil, "-max-finished-executions"},
		{"placeholder without a value", []string{"-definitions", placeholders, "-substitute", "Channel=C0123ABCD"}, nil,
			"approval.asl.json: substitute the definition's placeholders: ${Approvers} has no value"},
		{"substitution without a name", []string{"-definitions", placeholders, "-substitute", "=U0123ABCD"}, nil, "want Name=value"},
		{"substitution without =", []string{"-definitions", placeholders, "-substitute", "Approvers"}, nil, "want Name=value"},
		{"substitution given twice", []string{"-definitions", placeholders, "-substitute", "A=1", "-substitute", "A=2"}, nil, "A is given twice"},
		{"substitution without definitions", []string{"-substitute", "A=1"}, nil, "-substitute needs -definitions"},
		{"unknown flag", []string{"-port", "1"}, nil, "flag provided but not defined"},
		{"stray argument", []string{"serve"}, nil, "unexpected arguments"},
		{"invalid address", []string{"-addr", "127.0.0.1:99999"}, nil, "listen"},
		{"unknown event status", []string{"-events-function", "f", "-events-statuses", "FAILED,DONE"}, nil, `-events-statuses: "DONE" is not a status`},
		{"lower-case event status", []string{"-events-function", "f", "-events-statuses", "failed"}, nil, `-events-statuses: "failed" is not a status`},
		{"event statuses without a function", []string{"-events-statuses", "FAILED"}, nil, "-events-statuses needs -events-function"},
		{"no read timeout", []string{"-read-timeout", "0s"}, nil, "-read-timeout and -idle-timeout must be positive"},
		{"negative idle timeout", []string{"-idle-timeout", "-1s"}, nil, "-read-timeout and -idle-timeout must be positive"},
		{"ecs task without a command", []string{"-ecs-task", "worker="}, nil, "want family=command or family/container=command"},
		{"ecs task without a family", []string{"-ecs-task", "/worker=sh"}, nil, "want family=command or family/container=command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var stdout, stderr syncBuffer
			err := run(ctx, tt.args, env(tt.env), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tt.want) {
				t.Errorf("run = %v (stderr %q), want an error about %q", err, stderr.String(), tt.want)
			}
			if stdout.String() != "" {
				t.Errorf("run printed %q", stdout.String())
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	t.Parallel()
	var stdout, stderr syncBuffer
	if err := run(context.Background(), []string{"-h"}, env(nil), &stdout, &stderr); err != nil {
		t.Fatalf("run -h = %v", err)
	}
	for _, want := range []string{"-addr", "-definitions", "-substitute", "-max-finished-executions", "-events-function", "-events-statuses", "-read-timeout", "-idle-timeout", "-ecs-task", "SFN_MOCK_CONFIG", "AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_S3"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %s:\n%s", want, stderr.String())
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// connectionRetryer retries nothing the API answers, only a broken
// connection, as the SDK's default retryer does: aws-sdk-go-v2 can read a
// reset connection as "use of closed network connection" after a 200
// (aws/aws-sdk-go-v2#2737), which its standard retryer retries.
func connectionRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.Retryables = []retry.IsErrorRetryable{retry.RetryableConnectionError{}}
	})
}
