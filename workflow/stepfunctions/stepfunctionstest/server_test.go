package stepfunctionstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

func TestWireErrors(t *testing.T) {
	s, _ := newServer(t)
	tests := []struct {
		name   string
		method string
		target string
		body   string
		want   string
	}{
		{"unknown operation", "POST", "AWSStepFunctions.Frobnicate", `{}`, "UnknownOperationException"},
		{"no target", "POST", "", `{}`, "UnknownOperationException"},
		{"other service", "POST", "DynamoDB_20120810.GetItem", `{}`, "UnknownOperationException"},
		{"GET", "GET", "AWSStepFunctions.SendTaskSuccess", ``, "UnknownOperationException"},
		{"malformed JSON", "POST", "AWSStepFunctions.SendTaskSuccess", `{"taskToken":`, "SerializationException"},
		{"empty body", "POST", "AWSStepFunctions.SendTaskSuccess", ``, "SerializationException"},
		{"wrong field type", "POST", "AWSStepFunctions.SendTaskSuccess", `{"taskToken":5,"output":"{}"}`, "SerializationException"},
		{"array body", "POST", "AWSStepFunctions.GetExecutionHistory", `[]`, "SerializationException"},
		{"missing token", "POST", "AWSStepFunctions.SendTaskSuccess", `{"output":"{}"}`, "ValidationException"},
		{"missing output", "POST", "AWSStepFunctions.SendTaskSuccess", `{"taskToken":"abc"}`, "ValidationException"},
		{"missing ARN", "POST", "AWSStepFunctions.DescribeExecution", `{}`, "ValidationException"},
		{"negative page", "POST", "AWSStepFunctions.GetExecutionHistory", `{"executionArn":"arn:x","maxResults":-1}`, "ValidationException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL()+"/", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", tt.target)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			body, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != http.StatusBadRequest || got.Type != tt.want || got.Message == "" {
				t.Errorf("got %d %q %q, want 400 %q with a message", resp.StatusCode, got.Type, got.Message, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestFailNext(t *testing.T) {
	tests := []struct {
		name        string
		errType     string
		n           int
		wantCalls   int
		wantStatus  int // 0: the call succeeds
		wantOutcome string
	}{
		{"throttled twice, SDK retries", "ThrottlingException", 2, 3, 0, "succeeded"},
		{"throttled beyond retries", "ThrottlingException", 3, 3, 400, "open"},
		{"unavailable beyond retries", "ServiceUnavailable", 5, 3, 503, "open"},
		{"internal failure once", "InternalFailure", 1, 2, 0, "succeeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, client := newServer(t)
			token := s.StartTask(execARN, "Approve")
			s.FailNext("SendTaskSuccess", tt.n, tt.errType)
			_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String("{}")})
			status := 0
			var respErr *awshttp.ResponseError
			if errors.As(err, &respErr) {
				status = respErr.HTTPStatusCode()
			} else if err != nil {
				t.Fatalf("error %v has no HTTP response", err)
			}
			if status != tt.wantStatus {
				t.Errorf("status = %d (%v), want %d", status, err, tt.wantStatus)
			}
			if err != nil && errorCode(t, err) != tt.errType {
				t.Errorf("error code = %q, want %q", errorCode(t, err), tt.errType)
			}
			if got := s.Calls("SendTaskSuccess"); got != tt.wantCalls {
				t.Errorf("Calls = %d, want %d", got, tt.wantCalls)
			}
			if got := s.Outcome(token).State; got != tt.wantOutcome {
				t.Errorf("Outcome.State = %q, want %q", got, tt.wantOutcome)
			}
		})
	}
}

func TestDropAfterApplyMakesTheRetrySeeTaskTimedOut(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	s.DropAfterApply("SendTaskSuccess", 1)
	_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String(`{"a":1}`)})
	var timedOut *types.TaskTimedOut
	if !errors.As(err, &timedOut) {
		t.Fatalf("error = %v, want *types.TaskTimedOut from the retry", err)
	}
	if got := s.Calls("SendTaskSuccess"); got != 2 {
		t.Errorf("Calls = %d, want 2", got)
	}
	if got := s.Successes(); got != 1 {
		t.Errorf("Successes = %d, want 1", got)
	}
	if got := s.Outcome(token).Output; got != `{"a":1}` {
		t.Errorf("Outcome.Output = %q", got)
	}
}
