package stepfunctionstest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"
)

// history reads the whole history in pages of 2.
func history(t *testing.T, client *sfn.Client, arn string, reverse bool) []types.HistoryEvent {
	t.Helper()
	var events []types.HistoryEvent
	var next *string
	for {
		out, err := client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{
			ExecutionArn: &arn, MaxResults: 2, ReverseOrder: reverse, NextToken: next,
		})
		if err != nil {
			t.Fatalf("GetExecutionHistory: %v", err)
		}
		if len(out.Events) > 2 {
			t.Fatalf("page has %d events, want at most 2", len(out.Events))
		}
		events = append(events, out.Events...)
		if out.NextToken == nil {
			return events
		}
		next = out.NextToken
	}
}

type eventSummary struct {
	ID, Prev int64
	Type     string
	Detail   string
}

func summarize(events []types.HistoryEvent) []eventSummary {
	var out []eventSummary
	for _, e := range events {
		s := eventSummary{ID: e.Id, Prev: e.PreviousEventId, Type: string(e.Type)}
		switch {
		case e.StateEnteredEventDetails != nil:
			s.Detail = aws.ToString(e.StateEnteredEventDetails.Name)
		case e.TaskSubmittedEventDetails != nil:
			s.Detail = aws.ToString(e.TaskSubmittedEventDetails.Output)
		case e.TaskSucceededEventDetails != nil:
			s.Detail = aws.ToString(e.TaskSucceededEventDetails.Output)
		case e.TaskFailedEventDetails != nil:
			s.Detail = aws.ToString(e.TaskFailedEventDetails.Error) + "/" + aws.ToString(e.TaskFailedEventDetails.Cause)
		case e.TaskTimedOutEventDetails != nil:
			s.Detail = aws.ToString(e.TaskTimedOutEventDetails.Error)
		}
		out = append(out, s)
	}
	return out
}

func TestGetExecutionHistoryRecordsTheCallbackLifecycle(t *testing.T) {
	s, client := newServer(t)
	won := s.StartTask(execARN, "Approve")
	s.Submit(won, []byte(`{"approvalId":"ap_1"}`))
	rejected := s.StartTask(execARN, "Review")
	s.Submit(rejected, []byte(`{"approvalId":"ap_2"}`))
	late := s.StartTask(execARN, "Sign")
	if _, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &won, Output: aws.String(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SendTaskFailure(context.Background(), &sfn.SendTaskFailureInput{TaskToken: &rejected, Error: aws.String("Rejected"), Cause: aws.String("no")}); err != nil {
		t.Fatal(err)
	}
	s.TimeOut(late)

	want := []eventSummary{
		{1, 0, "ExecutionStarted", ""},
		{2, 1, "TaskStateEntered", "Approve"},
		{3, 2, "TaskScheduled", ""},
		{4, 3, "TaskStarted", ""},
		{5, 4, "TaskSubmitted", `{"approvalId":"ap_1"}`},
		{6, 5, "TaskStateEntered", "Review"},
		{7, 6, "TaskScheduled", ""},
		{8, 7, "TaskStarted", ""},
		{9, 8, "TaskSubmitted", `{"approvalId":"ap_2"}`},
		{10, 9, "TaskStateEntered", "Sign"},
		{11, 10, "TaskScheduled", ""},
		{12, 11, "TaskStarted", ""},
		{13, 5, "TaskSucceeded", `{"ok":true}`},
		{14, 13, "TaskStateExited", ""},
		{15, 9, "TaskFailed", "Rejected/no"},
		{16, 12, "TaskTimedOut", "States.Timeout"},
	}
	forward := history(t, client, execARN, false)
	if diff := cmp.Diff(want, summarize(forward)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	slices.Reverse(want)
	if diff := cmp.Diff(want, summarize(history(t, client, execARN, true))); diff != "" {
		t.Errorf("reverse history (-want +got):\n%s", diff)
	}
	for _, e := range forward {
		if e.Timestamp == nil || e.Timestamp.IsZero() {
			t.Errorf("event %d has no timestamp", e.Id)
		}
	}
}

func TestGetExecutionHistoryPaging(t *testing.T) {
	s, client := newServer(t)
	for range 40 {
		s.StartTask(execARN, "Approve") // 3 events each, 121 in all
	}
	tests := []struct {
		name       string
		maxResults int32
		wantFirst  int
	}{
		{"default page", 0, 100},
		{"largest page", 1000, 121},
		{"small page", 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), MaxResults: tt.maxResults})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(out.Events); got != tt.wantFirst {
				t.Errorf("first page has %d events, want %d", got, tt.wantFirst)
			}
			if (out.NextToken != nil) != (tt.wantFirst < 121) {
				t.Errorf("nextToken = %v, want one only when events remain", out.NextToken)
			}
		})
	}
	if got := len(history(t, client, execARN, true)); got != 121 {
		t.Errorf("paged reverse history has %d events, want 121", got)
	}
}

func TestGetExecutionHistoryErrors(t *testing.T) {
	s, client := newServer(t)
	s.StartTask(execARN, "Approve")
	first, err := client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   sfn.GetExecutionHistoryInput
		want string
	}{
		{"unknown execution", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN + "-other")}, "ExecutionDoesNotExist"},
		{"not an ARN", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String("run-1")}, "InvalidArn"},
		{"page too large", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), MaxResults: 1001}, "ValidationException"},
		{"garbage nextToken", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), NextToken: aws.String("garbage!")}, "InvalidToken"},
		{"nextToken of the other direction", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), NextToken: first.NextToken, ReverseOrder: true}, "InvalidToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.GetExecutionHistory(context.Background(), &tt.in)
			if got := errorCode(t, err); got != tt.want {
				t.Errorf("error code = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestGetExecutionHistoryWithoutData(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	s.Submit(token, []byte(`{"approvalId":"ap_1"}`))
	out, err := client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{
		ExecutionArn: aws.String(execARN), IncludeExecutionData: aws.Bool(false),
	})
	if err != nil {
		t.Fatal(err)
	}
	submitted := out.Events[len(out.Events)-1]
	if submitted.TaskSubmittedEventDetails == nil || submitted.TaskSubmittedEventDetails.Output != nil {
		t.Errorf("TaskSubmitted details = %+v, want present without output", submitted.TaskSubmittedEventDetails)
	}
	if got := s.Outcome(token).State; got != "open" {
		t.Errorf("reading history changed the task to %q", got)
	}
}

func TestDescribeExecution(t *testing.T) {
	s, client := newServer(t)
	s.StartTask(execARN, "Approve")
	out, err := client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{string(out.Status), aws.ToString(out.Name), aws.ToString(out.StateMachineArn)}
	want := []string{"RUNNING", "run-1", "arn:aws:states:us-east-1:123456789012:stateMachine:Approvals"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DescribeExecution (-want +got):\n%s", diff)
	}
	if out.StartDate == nil || out.StartDate.IsZero() {
		t.Error("StartDate is missing")
	}
	_, err = client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN + "x")})
	if got := errorCode(t, err); got != "ExecutionDoesNotExist" {
		t.Errorf("unknown execution: error code = %q, want ExecutionDoesNotExist", got)
	}
}
