package stepfunctions_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// localEngine serves the local Step Functions engine on clock and returns
// the real SDK client that reaches it.
func localEngine(t *testing.T, clock sfnlocal.Clock) *sfn.Client {
	t.Helper()
	e := sfnlocal.New(sfnlocal.Options{Clock: clock})
	server := httptest.NewServer(sfnapi.NewHandler(e))
	t.Cleanup(func() {
		server.Close()
		e.Close()
	})
	return stepfunctionstest.NewClient(context.Background(), server.URL)
}

// waits pauses on a Wait state (a day) until stopped or timed out.
const waits = `{"TimeoutSeconds": 60, "StartAt": "Pause", "States": {
  "Pause": {"Type": "Wait", "Seconds": 86400, "Next": "Done"},
  "Done": {"Type": "Succeed"}}}`

func TestExecutionsDescribesExecutionsOfTheLocalEngine(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	clock := sfnlocal.NewFakeClock(t0)
	client := localEngine(t, clock)
	ctx := t.Context()
	machine, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("waits"), Definition: aws.String(waits), RoleArn: aws.String("arn:aws:iam::123456789012:role/test"),
	})
	if err != nil {
		t.Fatal(err)
	}
	start := func(name string) string {
		out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: machine.StateMachineArn, Name: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.ExecutionArn)
	}
	running, aborted, timedOut := start("running"), start("aborted"), start("timed-out")
	clock.Advance(time.Second)
	if _, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(aborted)}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(running + "-x")}); err == nil {
		t.Fatal("StopExecution of an unknown execution succeeded") // the premise of "not found"
	}
	// The other two time out at 60 s; restart "running" afterwards.
	clock.Advance(time.Minute)
	running = start("running-2")

	executions := stepfunctions.NewExecutions(client)
	tests := []struct {
		name string
		arn  string
		want workflow.Execution
		code string
	}{
		{"running", running, workflow.Execution{ARN: running, Status: workflow.ExecutionRunning}, ""},
		{"aborted", aborted, workflow.Execution{ARN: aborted, Status: workflow.ExecutionAborted, StoppedAt: t0.Add(time.Second)}, ""},
		{"timed out", timedOut, workflow.Execution{ARN: timedOut, Status: workflow.ExecutionTimedOut, StoppedAt: t0.Add(60 * time.Second)}, ""},
		{"unknown", running + "-unknown", workflow.Execution{}, workflow.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := executions.Execution(ctx, tt.arn)
			if workflow.ErrorCode(err) != tt.code || (tt.code == "" && err != nil) {
				t.Fatalf("Execution = %v, want code %q", err, tt.code)
			}
			if got.ARN != tt.want.ARN || got.Status != tt.want.Status || !got.StoppedAt.Equal(tt.want.StoppedAt) {
				t.Errorf("Execution = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestExecutionsReportsOtherErrorsAsTransient(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.approval(t, execARN, notifierAnswer)
	f.server.FailNext("DescribeExecution", 3, "ThrottlingException")
	_, err := stepfunctions.NewExecutions(f.client).Execution(t.Context(), a.ExecutionARN)
	if err == nil || workflow.ErrorCode(err) != "" || !strings.Contains(err.Error(), a.ExecutionARN) {
		t.Errorf("throttled Execution = %v, want a transient error naming the execution", err)
	}
	if got, err := stepfunctions.NewExecutions(f.client).Execution(t.Context(), a.ExecutionARN); err != nil || got.Status != workflow.ExecutionRunning {
		t.Errorf("Execution after the throttling = %+v, %v; want RUNNING", got, err)
	}
}
