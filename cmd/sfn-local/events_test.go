package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	awslambdago "github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/internal/fakelambda"
	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
)

// helperEnv makes the test binary run closeApprovals under aws-lambda-go.
const helperEnv = "SFN_LOCAL_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		awslambdago.Start(closeApprovals) // never returns
	}
	os.Exit(m.Run())
}

// closeApprovals stands for a function an EventBridge rule on execution
// status changes invokes: it reads the event with aws-lambda-go's type for
// EventBridge events and answers what it read.
func closeApprovals(_ context.Context, ev events.CloudWatchEvent) (map[string]string, error) {
	var d struct{ ExecutionArn, Status, Error string }
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		return nil, err
	}
	return map[string]string{"detailType": ev.DetailType, "source": ev.Source, "account": ev.AccountID, "region": ev.Region,
		"time": ev.Time.UTC().Format(time.RFC3339), "executionArn": d.ExecutionArn, "status": d.Status, "error": d.Error}, nil
}

// startFunction runs closeApprovals (this test binary, re-executed) behind
// the Lambda Runtime API emulator, served as function "closer" by a fake
// Lambda API.
func startFunction(t *testing.T) *fakelambda.Server {
	t.Helper()
	rt, err := lambdaruntime.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "AWS_LAMBDA_RUNTIME_API="+rt.Addr())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := rt.WaitNext(ctx); err != nil {
		t.Fatalf("the function did not start: %v", err)
	}
	api, err := fakelambda.Start(map[string]fakelambda.Handler{"closer": fakelambda.Handler(lambda.FromRuntime(rt))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	return api
}

func eventDefinitions(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "greet.asl.json"), `{"StartAt":"Hello","States":{"Hello":{"Type":"Pass","End":true}}}`)
	writeFile(t, filepath.Join(dir, "reject.asl.json"), `{"StartAt":"No","States":{"No":{"Type":"Fail","Error":"Rejected","Cause":"Alice said no"}}}`)
	writeFile(t, filepath.Join(dir, "approval.asl.json"), `{"StartAt":"Wait","States":{"Wait":{"Type":"Wait","Seconds":600,"End":true}}}`)
	return dir
}

// startNamed starts an execution of the named machine and returns its ARN.
func startNamed(ctx context.Context, t *testing.T, client *sfn.Client, machine, name, input string) string {
	t.Helper()
	out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String("arn:aws:states:eu-west-1:210987654321:stateMachine:" + machine),
		Name:            aws.String(name), Input: aws.String(input),
	})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	return aws.ToString(out.ExecutionArn)
}

// -events-function delivers the final status change of each execution to a
// real aws-lambda-go function, as Event invocations through the Lambda
// API, retrying one that failed; -events-statuses keeps RUNNING out.
func TestRunDeliversStatusChangeEvents(t *testing.T) {
	api := startFunction(t)
	api.FailNext("closer", 1, http.StatusConflict, "ResourceConflictException") // a function still Pending; the SDK does not retry it
	s := startRunEnv(t, map[string]string{"AWS_ENDPOINT_URL_LAMBDA": api.URL},
		"-definitions", eventDefinitions(t), "-region", "eu-west-1", "-account", "210987654321",
		"-events-function", "arn:aws:lambda:eu-west-1:210987654321:function:closer", "-events-statuses", "SUCCEEDED,FAILED,TIMED_OUT,ABORTED")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := newClient(s.url)

	want := map[string]string{}
	arn := startNamed(ctx, t, client, "greet", "g1", `{}`)
	pollUntilDone(ctx, t, client, arn)
	want[arn] = "SUCCEEDED "
	arn = startNamed(ctx, t, client, "reject", "r1", `{"note":"secret-marker"}`)
	pollUntilDone(ctx, t, client, arn)
	want[arn] = "FAILED Rejected"
	arn = startNamed(ctx, t, client, "approval", "a1", `{}`)
	if _, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn), Error: aws.String("Superseded")}); err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	want[arn] = "ABORTED Superseded"

	got := map[string]string{}
	for range want {
		var inv fakelambda.Invocation
		select {
		case inv = <-api.Invocations():
		case <-ctx.Done():
			t.Fatalf("the function saw %d events, want %d; logs:\n%s", len(got), len(want), s.logs)
		}
		var out map[string]string
		if inv.Err != nil || inv.InvocationType != "Event" || json.Unmarshal(inv.Output, &out) != nil {
			t.Fatalf("invocation %s: %s %v", inv.InvocationType, inv.Output, inv.Err)
		}
		if out["detailType"] != "Step Functions Execution Status Change" || out["source"] != "aws.states" ||
			out["account"] != "210987654321" || out["region"] != "eu-west-1" || out["time"] == "0001-01-01T00:00:00Z" {
			t.Errorf("the function read %v", out)
		}
		got[out["executionArn"]] = out["status"] + " " + out["error"]
	}
	for a, w := range want {
		if got[a] != w {
			t.Errorf("%s: the function saw %q, want %q", a, got[a], w)
		}
	}
	logs := s.logs.String()
	if !strings.Contains(logs, `"msg":"event delivery failed; retrying"`) || strings.Contains(logs, `"msg":"event delivery failed"`) {
		t.Errorf("want one retry and no failure logged:\n%s", logs)
	}
	if strings.Contains(logs, "secret-marker") {
		t.Errorf("an execution's input was logged:\n%s", logs)
	}
}

// An event the function cannot take is retried, then logged, without
// the payload.
func TestRunLogsUndeliverableEvents(t *testing.T) {
	api, err := fakelambda.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	s := startRunEnv(t, map[string]string{"AWS_ENDPOINT_URL_LAMBDA": api.URL},
		"-definitions", eventDefinitions(t), "-region", "eu-west-1", "-account", "210987654321",
		"-events-function", "nobody", "-events-statuses", "FAILED")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := newClient(s.url)
	arn := startNamed(ctx, t, client, "reject", "r1", `{"note":"secret-marker"}`)
	pollUntilDone(ctx, t, client, arn)

	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(s.logs.String(), `"msg":"event delivery failed"`) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("no delivery failure logged:\n%s", s.logs)
		}
	}
	var failure map[string]any
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, `"msg":"event delivery failed"`) {
			_ = json.Unmarshal([]byte(line), &failure)
		}
		if strings.Contains(line, "secret-marker") {
			t.Errorf("an execution's input was logged: %s", line)
		}
	}
	if failure["function"] != "nobody" || failure["execution_arn"] != arn || failure["status"] != "FAILED" ||
		failure["attempts"] != 3.0 || !strings.Contains(failure["error"].(string), "ResourceNotFoundException") {
		t.Errorf("failure logged as %v", failure)
	}
}
