package sfnapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

const roleArn = "arn:aws:iam::123456789012:role/sfn"

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is an engine on a fake clock behind the API, with a "notifier"
// Lambda function in process that hands each payload to Payloads, and the
// real SDK client pointed at it.
type fixture struct {
	t        *testing.T
	engine   *sfnlocal.Engine
	clock    *sfnlocal.FakeClock
	url      string
	client   *sfn.Client
	payloads chan notifierPayload
}

// notifierPayload is what the approval machine passes the notifier.
type notifierPayload struct {
	Token   string          `json:"token"`
	Request json.RawMessage `json:"request"`
}

func newFixture(t *testing.T, opts ...sfnapi.Option) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: sfnlocal.NewFakeClock(start), payloads: make(chan notifierPayload, 16)}
	fns := lambda.New(nil)
	fns.Register("notifier", func(ctx context.Context, payload []byte) ([]byte, error) {
		var p notifierPayload
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, err
		}
		f.payloads <- p
		return []byte(`{"posted":true}`), nil
	})
	f.engine = sfnlocal.New(sfnlocal.Options{Clock: f.clock, Integrations: []task.Integration{integrations.NewRouter(nil, fns)}})
	t.Cleanup(f.engine.Close)
	srv := httptest.NewServer(sfnapi.NewHandler(f.engine, opts...))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	f.client = newClient(srv.URL)
	return f
}

// newClient returns the real SDK client for an endpoint, retrying only
// what connectionRetryer retries.
func newClient(url string) *sfn.Client {
	return sfn.New(sfn.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      connectionRetryer(),
	})
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var machineSeq atomic.Int64

// create creates a state machine over the wire and returns its ARN.
func (f *fixture) create(def string) string {
	f.t.Helper()
	name := "machine-" + time.Duration(machineSeq.Add(1)).String()
	out, err := f.client.CreateStateMachine(testContext(f.t), &sfn.CreateStateMachineInput{
		Name: aws.String(name), Definition: aws.String(def), RoleArn: aws.String(roleArn),
	})
	if err != nil {
		f.t.Fatalf("CreateStateMachine: %v", err)
	}
	return aws.ToString(out.StateMachineArn)
}

// start starts an execution over the wire and returns its ARN.
func (f *fixture) start(machine, input string) string {
	f.t.Helper()
	out, err := f.client.StartExecution(testContext(f.t), &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Input: aws.String(input)})
	if err != nil {
		f.t.Fatalf("StartExecution: %v", err)
	}
	return aws.ToString(out.ExecutionArn)
}

// nextPayload waits for the notifier's next invocation.
func (f *fixture) nextPayload() notifierPayload {
	f.t.Helper()
	select {
	case p := <-f.payloads:
		return p
	case <-testContext(f.t).Done():
		f.t.Fatal("the notifier was not invoked")
	}
	return notifierPayload{}
}

// finished waits, in process, for an execution to end, then describes it
// over the wire.
func (f *fixture) finished(arn string) *sfn.DescribeExecutionOutput {
	f.t.Helper()
	if _, err := f.engine.WaitExecution(testContext(f.t), arn); err != nil {
		f.t.Fatalf("WaitExecution: %v", err)
	}
	out, err := f.client.DescribeExecution(testContext(f.t), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	if err != nil {
		f.t.Fatalf("DescribeExecution: %v", err)
	}
	return out
}

// history reads an execution's whole history over the wire.
func (f *fixture) history(arn string) *sfn.GetExecutionHistoryOutput {
	f.t.Helper()
	out, err := f.client.GetExecutionHistory(testContext(f.t), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
	if err != nil {
		f.t.Fatalf("GetExecutionHistory: %v", err)
	}
	return out
}

// wantAPIError fails unless err is (or wraps) a *T.
func wantAPIError[T error](t *testing.T, err error) T {
	t.Helper()
	var target T
	if !errors.As(err, &target) {
		t.Fatalf("error = %v (%T), want %T", err, err, target)
	}
	return target
}

// wantCode fails unless err is an API error with code, for the errors the
// SDK does not model for an operation.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
		t.Fatalf("error = %v, want API error %s", err, code)
	}
}

// jsonEqual compares two JSON texts semantically.
func jsonEqual(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %q", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %q", want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// approvalDef is the callback machine: a lambda:invoke.waitForTaskToken
// Task on the in-process notifier, with rejection caught.
const approvalDef = `{"StartAt":"Approve","States":{
	"Approve":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"FunctionName":"notifier","Payload":{"token.$":"$$.Task.Token","request.$":"$"}},
		"ResultPath":"$.decision",
		"Catch":[{"ErrorEquals":["Rejected"],"ResultPath":"$.rejection","Next":"Rejected"}],
		"Next":"Done"},
	"Rejected":{"Type":"Pass","End":true},
	"Done":{"Type":"Succeed"}}}`

// syncBuffer is a log sink the handler and the test share.
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
