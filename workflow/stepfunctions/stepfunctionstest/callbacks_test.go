package stepfunctionstest_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

func TestStartTaskIssuesLongFreshTokens(t *testing.T) {
	s, _ := newServer(t)
	base64ish := regexp.MustCompile(`^[A-Za-z0-9+/=]+$`)
	seen := map[string]bool{}
	for range 5 {
		token := s.StartTask(execARN, "Approve")
		if len(token) < 600 || len(token) > 2048 {
			t.Errorf("token length = %d, want about 700", len(token))
		}
		if !base64ish.MatchString(token) {
			t.Errorf("token has characters outside base64")
		}
		if seen[token] {
			t.Errorf("token issued twice")
		}
		seen[token] = true
		if got := s.Outcome(token).State; got != stepfunctionstest.StateOpen {
			t.Errorf("Outcome(new task).State = %q, want open", got)
		}
	}
	if got := s.Outcome("never-issued").State; got != "" {
		t.Errorf("Outcome(unknown).State = %q, want empty", got)
	}
}

func TestSendTaskSuccess(t *testing.T) {
	const output = `{"approvalId":"ap_1","note":"ünïcode \u2028 \"quoted\"","n":1.50}`
	tests := []struct {
		name      string
		arrange   func(t *testing.T, s *stepfunctionstest.Server, token string) (string, string) // token and output to send
		wantCode  string
		wantState string
	}{
		{"open task", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) { return tok, output }, "", stepfunctionstest.StateSucceeded},
		{"second call", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) {
			s.Submit(tok, []byte(`{}`))
			mustSucceed(t, s, tok)
			return tok, output
		}, "TaskTimedOut", stepfunctionstest.StateSucceeded},
		{"after timeout", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) {
			s.TimeOut(tok)
			return tok, output
		}, "TaskTimedOut", stepfunctionstest.StateTimedOut},
		{"unknown token", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) {
			return "AQCEAAAAunknown", output
		}, "InvalidToken", stepfunctionstest.StateOpen},
		{"output not JSON", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) { return tok, "approved" }, "InvalidOutput", stepfunctionstest.StateOpen},
		{"output empty", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) { return tok, "" }, "InvalidOutput", stepfunctionstest.StateOpen},
		{"output too long", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) {
			return tok, `"` + strings.Repeat("x", 262144) + `"`
		}, "ValidationException", stepfunctionstest.StateOpen},
		{"token too long", func(t *testing.T, s *stepfunctionstest.Server, tok string) (string, string) {
			return strings.Repeat("A", 2049), output
		}, "ValidationException", stepfunctionstest.StateOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, client := newServer(t)
			token := s.StartTask(execARN, "Approve")
			sendToken, sendOutput := tt.arrange(t, s, token)
			_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &sendToken, Output: &sendOutput})
			if got := errorCode(t, err); got != tt.wantCode {
				t.Fatalf("error code = %q (%v), want %q", got, err, tt.wantCode)
			}
			got := s.Outcome(token)
			if got.State != tt.wantState {
				t.Errorf("Outcome.State = %q, want %q", got.State, tt.wantState)
			}
			if tt.wantCode == "" && got.Output != output {
				t.Errorf("Outcome.Output = %q, want %q", got.Output, output)
			}
		})
	}
}

func TestTaskTimedOutMessageIsAWSs(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	mustSucceed(t, s, token)
	_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String("{}")})
	var timedOut *types.TaskTimedOut
	if !errors.As(err, &timedOut) {
		t.Fatalf("error = %v, want *types.TaskTimedOut", err)
	}
	if got, want := timedOut.ErrorMessage(), "Task Timed Out: 'Provided task does not exist anymore'"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestSendTaskFailure(t *testing.T) {
	tests := []struct {
		name        string
		errName     *string
		cause       *string
		wantCode    string
		wantOutcome stepfunctionstest.Outcome
	}{
		{"rejected with cause", aws.String("Rejected"), aws.String("too long"), "", stepfunctionstest.Outcome{State: "failed", Error: "Rejected", Cause: "too long"}},
		{"no error or cause", nil, nil, "", stepfunctionstest.Outcome{State: "failed"}},
		{"error too long", aws.String(strings.Repeat("E", 257)), nil, "ValidationException", stepfunctionstest.Outcome{State: "open"}},
		{"cause too long", aws.String("Rejected"), aws.String(strings.Repeat("c", 32769)), "ValidationException", stepfunctionstest.Outcome{State: "open"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, client := newServer(t)
			token := s.StartTask(execARN, "Approve")
			_, err := client.SendTaskFailure(context.Background(), &sfn.SendTaskFailureInput{TaskToken: &token, Error: tt.errName, Cause: tt.cause})
			if got := errorCode(t, err); got != tt.wantCode {
				t.Fatalf("error code = %q (%v), want %q", got, err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantOutcome, s.Outcome(token)); diff != "" {
				t.Errorf("Outcome (-want +got):\n%s", diff)
			}
			if tt.wantCode != "" {
				return
			}
			_, err = client.SendTaskFailure(context.Background(), &sfn.SendTaskFailureInput{TaskToken: &token, Error: tt.errName, Cause: tt.cause})
			if got := errorCode(t, err); got != "TaskTimedOut" {
				t.Errorf("second failure: error code = %q, want TaskTimedOut", got)
			}
		})
	}
}

func TestSendTaskHeartbeat(t *testing.T) {
	tests := []struct {
		name     string
		arrange  func(s *stepfunctionstest.Server, token string) string
		wantCode string
	}{
		{"open", func(s *stepfunctionstest.Server, tok string) string { return tok }, ""},
		{"closed", func(s *stepfunctionstest.Server, tok string) string { s.TimeOut(tok); return tok }, "TaskTimedOut"},
		{"unknown", func(s *stepfunctionstest.Server, tok string) string { return "nope" }, "InvalidToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, client := newServer(t)
			token := tt.arrange(s, s.StartTask(execARN, "Approve"))
			before := len(history(t, client, execARN, false))
			_, err := client.SendTaskHeartbeat(context.Background(), &sfn.SendTaskHeartbeatInput{TaskToken: &token})
			if got := errorCode(t, err); got != tt.wantCode {
				t.Fatalf("error code = %q (%v), want %q", got, err, tt.wantCode)
			}
			if after := len(history(t, client, execARN, false)); after != before {
				t.Errorf("heartbeat changed the history from %d to %d events", before, after)
			}
		})
	}
}

func TestConcurrentSuccessesCloseOnce(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	const n = 20
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String(`{"i":1}`)})
			var timedOut *types.TaskTimedOut
			switch {
			case err == nil:
				codes[i] = "ok"
			case errors.As(err, &timedOut):
				codes[i] = "TaskTimedOut"
			default:
				codes[i] = err.Error()
			}
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for _, c := range codes {
		counts[c]++
	}
	if diff := cmp.Diff(map[string]int{"ok": 1, "TaskTimedOut": n - 1}, counts); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if got := s.Successes(); got != 1 {
		t.Errorf("Successes() = %d, want 1", got)
	}
}

func TestWaitClosed(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	done := make(chan stepfunctionstest.Outcome)
	go func() {
		o, err := s.WaitClosed(context.Background(), token)
		if err != nil {
			t.Errorf("WaitClosed: %v", err)
		}
		done <- o
	}()
	if _, err := client.SendTaskFailure(context.Background(), &sfn.SendTaskFailureInput{TaskToken: &token, Error: aws.String("Rejected")}); err != nil {
		t.Fatal(err)
	}
	if got, want := <-done, (stepfunctionstest.Outcome{State: "failed", Error: "Rejected"}); got != want {
		t.Errorf("WaitClosed = %+v, want %+v", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	open := s.StartTask(execARN, "Approve")
	if _, err := s.WaitClosed(ctx, open); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitClosed(canceled ctx) error = %v, want context.Canceled", err)
	}
	if _, err := s.WaitClosed(context.Background(), "unknown"); err == nil {
		t.Error("WaitClosed(unknown token) error = nil, want an error")
	}
	s.Close()
	if _, err := s.WaitClosed(context.Background(), open); err == nil {
		t.Error("WaitClosed after Close error = nil, want an error")
	}
}

func mustSucceed(t *testing.T, s *stepfunctionstest.Server, token string) {
	t.Helper()
	client := stepfunctionstest.NewClient(context.Background(), s.URL())
	if _, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String(`{}`)}); err != nil {
		t.Fatalf("SendTaskSuccess: %v", err)
	}
}

// A stalled call waits before it is applied: released, it is applied and
// answered; its caller gone (the connection closed), it is not applied.
func TestStallNext(t *testing.T) {
	s, client := newServer(t)
	token := s.StartTask(execARN, "Approve")
	arrived, _ := s.StallNext("SendTaskSuccess") // never released
	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan error, 1)
	go func() {
		_, err := client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String(`{}`)})
		sent <- err
	}()
	<-arrived
	cancel() // the caller goes away while the call is held
	if err := <-sent; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	if got := s.Outcome(token).State; got != stepfunctionstest.StateOpen {
		t.Fatalf("task %s after its caller went away, want open", got)
	}

	arrived, release := s.StallNext("SendTaskSuccess")
	go func() {
		_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: &token, Output: aws.String(`{}`)})
		sent <- err
	}()
	<-arrived
	if got := s.Outcome(token).State; got != stepfunctionstest.StateOpen {
		t.Fatalf("task %s while its call is held, want open", got)
	}
	release()
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if got := s.Outcome(token).State; got != stepfunctionstest.StateSucceeded {
		t.Errorf("task %s after release, want succeeded", got)
	}
}
