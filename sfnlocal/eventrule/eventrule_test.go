package eventrule

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sfnapprovals/approvals/internal/fakelambda"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// lambdaAPI starts a fake Lambda API running fn as "closer" and returns
// it with the Lambda integration that reaches it through the real client.
func lambdaAPI(t *testing.T, fn fakelambda.Handler) (*fakelambda.Server, *lambda.Integration) {
	t.Helper()
	s, err := fakelambda.Start(map[string]fakelambda.Handler{"closer": fn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	client := awslambda.New(awslambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), RetryMaxAttempts: 1})
	return s, lambda.New(client)
}

// nextInvocation waits for the function's next invocation.
func nextInvocation(t *testing.T, api *fakelambda.Server) fakelambda.Invocation {
	t.Helper()
	select {
	case got := <-api.Invocations():
		return got
	case <-testContext(t).Done():
		t.Fatal("the function was not invoked")
	}
	return fakelambda.Invocation{}
}

func accept(context.Context, []byte) ([]byte, error) { return nil, nil }

func event(status, marker string) []byte {
	return []byte(`{"version":"0","id":"1","detail-type":"Step Functions Execution Status Change","source":"aws.states","detail":{"executionArn":"arn:aws:states:us-east-1:123456789012:execution:m:x","status":"` +
		status + `","input":"{\"note\":\"` + marker + ` <&>\"}"}}`)
}

// Matching events reach the function byte for byte, as Event invocations.
func TestDeliverInvokesTheFunctionWithMatchingEvents(t *testing.T) {
	t.Parallel()
	api, fns := lambdaAPI(t, accept)
	rule, err := New(Config{Function: "arn:aws:lambda:us-east-1:123456789012:function:closer", Statuses: []string{"FAILED", "ABORTED"}, Lambda: fns})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	for _, status := range []string{"RUNNING", "FAILED", "SUCCEEDED", "ABORTED"} {
		rule.Deliver(ctx, event(status, "m"))
	}
	for _, want := range []string{"FAILED", "ABORTED"} {
		got := nextInvocation(t, api)
		if got.InvocationType != "Event" || string(got.Payload) != string(event(want, "m")) {
			t.Errorf("invocation %s %s, want the %s event as it was", got.InvocationType, got.Payload, want)
		}
	}
	select {
	case got := <-api.Invocations():
		t.Errorf("unexpected invocation with %s", got.Payload)
	default:
	}
}

// A throttled invocation is retried; one that keeps failing is logged,
// with the function, execution and status, never the payload.
func TestDeliverRetriesThenLogs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failures  int
		delivered bool
	}{
		{"succeeds on the last attempt", 2, true},
		{"fails every attempt", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api, fns := lambdaAPI(t, accept)
			core, logs := observer.New(zapcore.DebugLevel)
			rule, err := New(Config{Function: "closer", Lambda: fns, Logger: zap.New(core), Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			api.FailNext("closer", tt.failures, http.StatusTooManyRequests, "TooManyRequestsException")
			rule.Deliver(testContext(t), event("FAILED", "secret-marker"))

			failed := logs.FilterMessage("event delivery failed").All()
			if tt.delivered {
				if got := nextInvocation(t, api); !strings.Contains(string(got.Payload), "secret-marker") {
					t.Errorf("invocation payload %s", got.Payload)
				}
				if len(failed) != 0 {
					t.Errorf("logged a failure: %v", failed[0].ContextMap())
				}
			} else {
				if len(failed) != 1 {
					t.Fatalf("%d failures logged, want 1", len(failed))
				}
				f := failed[0].ContextMap()
				if f["function"] != "closer" || f["status"] != "FAILED" || f["attempts"] != int64(3) ||
					!strings.HasSuffix(f["execution_arn"].(string), ":execution:m:x") || !strings.Contains(f["error"].(string), "TooManyRequests") {
					t.Errorf("failure logged as %v", f)
				}
			}
			for _, e := range logs.All() {
				if b, _ := json.Marshal(e.ContextMap()); strings.Contains(e.Message+string(b), "secret-marker") {
					t.Errorf("the payload was logged: %s %s", e.Message, b)
				}
			}
		})
	}
}

// Delivery stops when its context ends, during a retry's backoff too.
func TestDeliverStopsWithItsContext(t *testing.T) {
	t.Parallel()
	api, fns := lambdaAPI(t, accept)
	core, logs := observer.New(zapcore.DebugLevel)
	rule, err := New(Config{Function: "closer", Lambda: fns, Logger: zap.New(core), Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	api.FailNext("closer", 1, http.StatusInternalServerError, "ServiceException")
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan struct{})
	go func() {
		rule.Deliver(ctx, event("FAILED", "m"))
		close(done)
	}()
	deadline := testContext(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for logs.FilterMessageSnippet("retrying").Len() == 0 {
		select {
		case <-tick.C:
		case <-deadline.Done():
			t.Fatal("the first attempt never failed")
		}
	}
	cancel()
	select {
	case <-done:
	case <-deadline.Done():
		t.Fatal("Deliver still waits for its retry after its context ended")
	}
	if logs.FilterMessage("event not delivered: delivery stopped").Len() != 1 {
		t.Errorf("logs: %v", logs.All())
	}
	select {
	case got := <-api.Invocations():
		t.Errorf("the function ran after the context ended: %s", got.Payload)
	default:
	}
}

func TestNewRefusesBadRules(t *testing.T) {
	t.Parallel()
	fns := lambda.New(nil)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no function", Config{Lambda: fns}, "no target function"},
		{"no integration", Config{Function: "f"}, "no Lambda integration"},
		{"unknown status", Config{Function: "f", Lambda: fns, Statuses: []string{"FAILED", "DONE"}}, `unknown status "DONE"`},
		{"lower-case status", Config{Function: "f", Lambda: fns, Statuses: []string{"failed"}}, `unknown status "failed"`},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, want an error about %s", tt.name, err, tt.want)
		}
	}
}

// Wired into the engine, the rule hands an in-process function every
// status change of a Standard execution, in order.
func TestRuleWithTheEngine(t *testing.T) {
	t.Parallel()
	got := make(chan string, 10)
	fns := lambda.New(nil)
	fns.Register("closer", func(_ context.Context, payload []byte) ([]byte, error) {
		var ev struct {
			DetailType string `json:"detail-type"`
			Detail     struct{ Status, Error string }
		}
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, err
		}
		got <- ev.DetailType + " " + ev.Detail.Status + " " + ev.Detail.Error
		return nil, nil
	})
	rule, err := New(Config{Function: "closer", Lambda: fns})
	if err != nil {
		t.Fatal(err)
	}
	e := sfnlocal.New(sfnlocal.Options{Events: rule.Deliver, Clock: sfnlocal.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))})
	t.Cleanup(e.Close)
	ctx := testContext(t)
	sm, err := e.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: "m", Definition: `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"Rejected"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	x, err := e.StartExecution(ctx, sfnlocal.StartExecutionInput{StateMachineArn: sm.StateMachineArn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.WaitExecution(ctx, x.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Step Functions Execution Status Change RUNNING ", "Step Functions Execution Status Change FAILED Rejected"} {
		select {
		case g := <-got:
			if g != want {
				t.Errorf("the function saw %q, want %q", g, want)
			}
		case <-ctx.Done():
			t.Fatalf("the function never saw %q", want)
		}
	}
}
