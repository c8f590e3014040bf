package sfnapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// failingTask fails every attempt of a Task state.
type failingTask struct{}

func (failingTask) Supports(string) bool { return true }
func (failingTask) Invoke(context.Context, task.Call) (json.RawMessage, error) {
	return nil, &task.Failure{Name: "Boom", Cause: "always"}
}

// slowBody hands the client its response a little at a time, so writing
// a large body outlasts the server's read deadline.
type slowBody struct{ io.ReadCloser }

func (b slowBody) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return b.ReadCloser.Read(p[:min(len(p), 16<<10)])
}

type slowTransport struct{ http.RoundTripper }

// smallBuffers gives each accepted connection a small send buffer, so a
// response the client reads slowly keeps the server writing instead of
// landing in the kernel's buffers at once.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

func (s slowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.RoundTripper.RoundTrip(r)
	if err == nil {
		resp.Body = slowBody{resp.Body}
	}
	return resp, err
}

// largeHistory runs an execution with a 16 KiB input whose Task fails
// and is retried 40 times (every attempt's TaskScheduled carries the
// input), and serves it behind a server whose ReadTimeout and
// WriteTimeout (200 ms) are far shorter than a slow client (a small send
// buffer on the server, a pause every 16 KiB read) takes to read a page.
// It returns a maker of such clients (each with connections of its own),
// the execution and its number of events.
func largeHistory(t *testing.T) (func() *sfn.Client, string, int) {
	t.Helper()
	engine := sfnlocal.New(sfnlocal.Options{Integrations: []task.Integration{failingTask{}}})
	t.Cleanup(engine.Close)
	srv := httptest.NewUnstartedServer(sfnapi.NewHandler(engine))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Config.WriteTimeout = 200 * time.Millisecond
	srv.Config.IdleTimeout = time.Minute // as host.Serve's: longer than a client takes to read a page
	srv.Start()
	t.Cleanup(srv.Close)
	newClient := func() *sfn.Client {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(transport.CloseIdleConnections)
		// The SDK's standard retryer, as users have it: it retries the
		// "use of closed network connection" its own transport race can
		// raise on a large response (aws-sdk-go-v2#2737, #2949).
		return sfn.New(sfn.Options{
			BaseEndpoint: aws.String(srv.URL), Region: "us-east-1", RetryMaxAttempts: 5,
			Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
			HTTPClient:  &http.Client{Transport: slowTransport{transport}},
		})
	}
	ctx := testContext(t)
	m, err := engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: "large", RoleArn: roleArn,
		Definition: `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
			"Retry":[{"ErrorEquals":["States.ALL"],"MaxAttempts":40,"IntervalSeconds":0}],"End":true}}}`})
	if err != nil {
		t.Fatal(err)
	}
	input := `{"big":"` + strings.Repeat("x", 16<<10) + `"}`
	x, err := engine.StartExecution(ctx, sfnlocal.StartExecutionInput{StateMachineArn: m.StateMachineArn, Input: input})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.WaitExecution(ctx, x.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	const events = 1 + 1 + 41*3 + 1 // started, entered, 41 × (scheduled, started, failed), failed
	return newClient, x.ExecutionArn, events
}

// A history of large events reaches the real SDK client whole, page after
// page, in both directions, although writing each page outlasts the
// server's ReadTimeout and WriteTimeout: no server timeout cuts a response
// being written (before, the SDK failed with "deserialization failed,
// failed to decode response body, unexpected EOF" or "use of closed
// network connection"). Pages hold maxResults events (100 by default), as
// GetExecutionHistory documents.
func TestLargeHistoryPages(t *testing.T) {
	t.Parallel()
	newClient, arn, total := largeHistory(t)
	tests := []struct {
		name       string
		maxResults int32
		reverse    bool
		wantPages  []int
	}{
		{"default page", 0, false, []int{100, total - 100}},
		{"default page, newest first", 0, true, []int{100, total - 100}},
		{"pages of 30", 30, false, []int{30, 30, 30, 30, total - 120}},
		{"pages of 30, newest first", 30, true, []int{30, 30, 30, 30, total - 120}},
		{"one page of 1000", 1000, true, []int{total}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := sfn.NewGetExecutionHistoryPaginator(newClient(), &sfn.GetExecutionHistoryInput{
				ExecutionArn: aws.String(arn), MaxResults: tt.maxResults, ReverseOrder: tt.reverse})
			var pages []int
			var ids []int64
			for p.HasMorePages() {
				out, err := p.NextPage(testContext(t))
				if err != nil {
					t.Fatalf("page %d: %v", len(pages)+1, err)
				}
				pages = append(pages, len(out.Events))
				for _, ev := range out.Events {
					ids = append(ids, ev.Id)
					if ev.Type == types.HistoryEventTypeTaskScheduled && len(aws.ToString(ev.TaskScheduledEventDetails.Parameters)) < 16<<10 {
						t.Fatalf("event %d lost its parameters", ev.Id)
					}
				}
			}
			if !equalInts(pages, tt.wantPages) {
				t.Errorf("page sizes %v, want %v", pages, tt.wantPages)
			}
			for i, id := range ids {
				want := int64(i + 1)
				if tt.reverse {
					want = int64(total - i)
				}
				if id != want {
					t.Fatalf("event %d of the pages has id %d, want %d", i, id, want)
				}
			}
		})
	}
}

// A page token belongs to its execution and direction: used with the
// other direction, another execution or mangled, it is InvalidToken;
// maxResults outside 0..1000 is a ValidationException.
func TestHistoryTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	machine := f.create(`{"StartAt":"P","States":{"P":{"Type":"Pass","Next":"Q"},"Q":{"Type":"Pass","End":true}}}`)
	a, b := f.start(machine, `{}`), f.start(machine, `{}`)
	f.finished(a)
	f.finished(b)
	ctx := testContext(t)
	first, err := f.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), MaxResults: 2})
	if err != nil || first.NextToken == nil || len(first.Events) != 2 {
		t.Fatalf("first page: %v, %+v", err, first)
	}
	tests := []struct {
		name string
		in   sfn.GetExecutionHistoryInput
		want string
	}{
		{"the other direction", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), MaxResults: 2, ReverseOrder: true, NextToken: first.NextToken}, "InvalidToken"},
		{"another execution", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(b), MaxResults: 2, NextToken: first.NextToken}, "InvalidToken"},
		{"mangled", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), NextToken: aws.String(aws.ToString(first.NextToken) + "x")}, "InvalidToken"},
		{"maxResults 1001", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), MaxResults: 1001}, "ValidationException"},
		{"maxResults -1", sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), MaxResults: -1}, "ValidationException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.client.GetExecutionHistory(ctx, &tt.in)
			wantCode(t, err, tt.want)
		})
	}
	rest, err := f.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(a), MaxResults: 2, NextToken: first.NextToken})
	if err != nil || len(rest.Events) != 2 || rest.Events[0].Id != 3 {
		t.Fatalf("second page: %v, %+v", err, rest)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
