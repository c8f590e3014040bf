package sfnapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
)

func TestCallbackSucceeds(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	f := newFixture(t, sfnapi.WithLogger(logging.New(logs, zapcore.DebugLevel)))
	ctx := testContext(t)
	arn := f.start(f.create(approvalDef), `{"id":"r1"}`)
	token := f.nextPayload().Token

	if _, err := f.client.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(token)}); err != nil {
		t.Fatalf("SendTaskHeartbeat: %v", err)
	}
	if _, err := f.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"approved":true}`)}); err != nil {
		t.Fatalf("SendTaskSuccess: %v", err)
	}
	x := f.finished(arn)
	if x.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("status = %s (%s: %s), want SUCCEEDED", x.Status, aws.ToString(x.Error), aws.ToString(x.Cause))
	}
	jsonEqual(t, aws.ToString(x.Output), `{"id":"r1","decision":{"approved":true}}`)
	if aws.ToString(x.Input) != `{"id":"r1"}` || x.StopDate == nil || !x.StartDate.Equal(start) {
		t.Errorf("DescribeExecution = input %q, start %v, stop %v", aws.ToString(x.Input), x.StartDate, x.StopDate)
	}

	_, err := f.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{}`)})
	if e := wantAPIError[*types.TaskTimedOut](t, err); !strings.Contains(e.ErrorMessage(), "Provided task does not exist anymore") {
		t.Errorf("second SendTaskSuccess message = %q", e.ErrorMessage())
	}
	_, err = f.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("AQbogus"), Output: aws.String(`{}`)})
	wantAPIError[*types.InvalidToken](t, err)

	if strings.Contains(logs.String(), token) {
		t.Error("the log contains the task token")
	}
	if !strings.Contains(logs.String(), `"operation":"SendTaskSuccess"`) || !strings.Contains(logs.String(), `"code":"TaskTimedOut"`) {
		t.Errorf("the log lacks the request lines:\n%s", logs)
	}
}

func TestCallbackHistoryDecodes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	arn := f.start(f.create(approvalDef), `{"id":"r2"}`)
	token := f.nextPayload().Token
	if _, err := f.client.SendTaskSuccess(testContext(t), &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"approved":true}`)}); err != nil {
		t.Fatal(err)
	}
	f.finished(arn)

	events := f.history(arn).Events
	var got []types.HistoryEventType
	for i, ev := range events {
		got = append(got, ev.Type)
		if ev.Id != int64(i+1) || ev.Timestamp == nil || !ev.Timestamp.Equal(start) {
			t.Errorf("event %d: id %d, timestamp %v", i, ev.Id, ev.Timestamp)
		}
	}
	want := []types.HistoryEventType{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted",
		"TaskSucceeded", "TaskStateExited", "SucceedStateEntered", "SucceedStateExited", "ExecutionSucceeded"}
	if !slices.Equal(got, want) {
		t.Fatalf("history = %v\nwant      %v", got, want)
	}
	if d := events[0].ExecutionStartedEventDetails; d == nil || aws.ToString(d.Input) != `{"id":"r2"}` || aws.ToString(d.RoleArn) != roleArn {
		t.Errorf("ExecutionStarted details = %+v", d)
	}
	if d := events[1].StateEnteredEventDetails; d == nil || aws.ToString(d.Name) != "Approve" {
		t.Errorf("TaskStateEntered details = %+v", d)
	}
	if d := events[2].TaskScheduledEventDetails; d == nil || aws.ToString(d.ResourceType) != "lambda" ||
		aws.ToString(d.Resource) != "invoke.waitForTaskToken" || aws.ToString(d.Region) != "us-east-1" {
		t.Errorf("TaskScheduled details = %+v", d)
	}
	sub := events[4].TaskSubmittedEventDetails
	if sub == nil || !strings.Contains(aws.ToString(sub.Output), `"Payload":{"posted":true}`) {
		t.Errorf("TaskSubmitted details = %+v", sub)
	}
	if d := events[5].TaskSucceededEventDetails; d == nil || aws.ToString(d.Output) != `{"approved":true}` || d.OutputDetails == nil {
		t.Errorf("TaskSucceeded details = %+v", d)
	}
	if d := events[9].ExecutionSucceededEventDetails; d == nil || !strings.Contains(aws.ToString(d.Output), `"approved":true`) {
		t.Errorf("ExecutionSucceeded details = %+v", d)
	}
}

func TestCallbackInvalidOutputKeepsTheTaskOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	arn := f.start(f.create(approvalDef), `{}`)
	token := f.nextPayload().Token

	_, err := f.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`approved`)})
	wantAPIError[*types.InvalidOutput](t, err)
	if _, err := f.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`"approved"`)}); err != nil {
		t.Fatalf("SendTaskSuccess after InvalidOutput: %v", err)
	}
	jsonEqual(t, aws.ToString(f.finished(arn).Output), `{"decision":"approved"}`)
}

func TestCallbackRejectedIsCaught(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	arn := f.start(f.create(approvalDef), `{"id":"r3"}`)
	token := f.nextPayload().Token
	_, err := f.client.SendTaskFailure(testContext(t), &sfn.SendTaskFailureInput{
		TaskToken: aws.String(token), Error: aws.String("Rejected"), Cause: aws.String("no budget"),
	})
	if err != nil {
		t.Fatalf("SendTaskFailure: %v", err)
	}
	x := f.finished(arn)
	if x.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("status = %s, want SUCCEEDED through the Catch", x.Status)
	}
	jsonEqual(t, aws.ToString(x.Output), `{"id":"r3","rejection":{"Error":"Rejected","Cause":"no budget"}}`)

	var failed *types.TaskFailedEventDetails
	for _, ev := range f.history(arn).Events {
		if ev.Type == types.HistoryEventTypeTaskFailed {
			failed = ev.TaskFailedEventDetails
		}
	}
	if failed == nil || aws.ToString(failed.Error) != "Rejected" || aws.ToString(failed.Cause) != "no budget" {
		t.Errorf("TaskFailed details = %+v", failed)
	}
}

func TestStopExecutionClosesTheToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	arn := f.start(f.create(approvalDef), `{}`)
	token := f.nextPayload().Token

	out, err := f.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn), Error: aws.String("Cancelled"), Cause: aws.String("by test")})
	if err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	if out.StopDate == nil {
		t.Error("StopExecution returned no stopDate")
	}
	x := f.finished(arn)
	if x.Status != types.ExecutionStatusAborted || aws.ToString(x.Error) != "Cancelled" || aws.ToString(x.Cause) != "by test" {
		t.Errorf("DescribeExecution = %s %q %q, want ABORTED Cancelled", x.Status, aws.ToString(x.Error), aws.ToString(x.Cause))
	}
	_, err = f.client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String("Rejected")})
	wantAPIError[*types.TaskTimedOut](t, err)

	events := f.history(arn).Events
	if last := events[len(events)-1]; last.Type != types.HistoryEventTypeExecutionAborted ||
		last.ExecutionAbortedEventDetails == nil || aws.ToString(last.ExecutionAbortedEventDetails.Error) != "Cancelled" {
		t.Errorf("last event = %s %+v", last.Type, last.ExecutionAbortedEventDetails)
	}
}
