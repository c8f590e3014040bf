package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestHandleClosesTheRequestsOfAnEndedExecution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status string
		reason string
	}{
		{"ABORTED", workflow.ReasonExecutionAborted},
		{"TIMED_OUT", workflow.ReasonExecutionTimedOut},
		{"FAILED", workflow.ReasonExecutionFailed},
		{"SUCCEEDED", workflow.ReasonExecutionSucceeded},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			first := f.request(t, execution, "")
			threaded := f.request(t, execution, "1699999999.000100")
			other := f.request(t, execution+"-other", "")
			stop := time.Now().Truncate(time.Millisecond)

			resp, err := f.handler.Handle(context.Background(), event(t, execution, tt.status, stop))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{first.ID, threaded.ID}
			got := slices.Clone(resp.Closed)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || len(resp.Unsynced) != 0 || resp.Ignored != "" {
				t.Fatalf("response = %+v, want %v closed and synced", resp, want)
			}
			for _, id := range want {
				a := f.get(t, id)
				if a.Status != workflow.StatusCancelled || a.Cancellation.Reason != tt.reason || !a.Cancellation.StoppedAt.Equal(stop) || !a.MessageSynced {
					t.Errorf("%s: %s %+v synced %v; want cancelled %q at %v, synced", id, a.Status, a.Cancellation, a.MessageSynced, tt.reason, stop)
				}
			}
			if updates, replies, _ := f.poster.counts(); updates != 2 || replies != 2 {
				t.Errorf("updates %d, replies %d; want 2 and 2", updates, replies)
			}
			for _, a := range f.poster.replies {
				if a.Status != workflow.StatusCancelled {
					t.Errorf("replied with %s, want the closed approval", a.Status)
				}
			}
			if got := f.get(t, other.ID).Status; got != workflow.StatusPending {
				t.Errorf("another execution's request is %s", got)
			}
			if strings.Contains(f.logs.String(), secretInput) {
				t.Errorf("the event's input or output reached the logs:\n%s", f.logs.String())
			}
		})
	}
}

// The same event again, a late one, or a RUNNING one change nothing and
// call Slack for nothing.
func TestHandleIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, execution, "")
	stop := time.Now()
	ctx := context.Background()
	if resp, err := f.handler.Handle(ctx, event(t, execution, "ABORTED", stop)); err != nil || len(resp.Closed) != 1 {
		t.Fatalf("first event = %+v, %v", resp, err)
	}
	closedAt := f.get(t, a.ID).ClosedAt
	_, _, calls := f.poster.counts()
	for _, ev := range [][]byte{
		event(t, execution, "ABORTED", stop),
		event(t, execution, "RUNNING", time.Time{}),
		event(t, execution, "FAILED", stop.Add(time.Second)),
	} {
		resp, err := f.handler.Handle(ctx, ev)
		if err != nil || len(resp.Closed) != 0 {
			t.Errorf("a repeated or late event = %+v, %v; want nothing closed", resp, err)
		}
	}
	if _, _, after := f.poster.counts(); after != calls {
		t.Errorf("repeated events made %d Slack calls", after-calls)
	}
	if got := f.get(t, a.ID); got.Cancellation.Reason != workflow.ReasonExecutionAborted || !got.ClosedAt.Equal(closedAt) {
		t.Errorf("repeated events changed the request: %+v at %v", got.Cancellation, got.ClosedAt)
	}

	running := f.request(t, execution+"-running", "")
	resp, err := f.handler.Handle(ctx, event(t, running.ExecutionARN, "RUNNING", time.Time{}))
	if err != nil || resp.Ignored == "" || f.get(t, running.ID).Status != workflow.StatusPending {
		t.Errorf("RUNNING = %+v, %v; want it ignored", resp, err)
	}
}

// A malformed event is logged, without its content, and acknowledged.
func TestHandleAcknowledgesMalformedEvents(t *testing.T) {
	t.Parallel()
	good := func(t *testing.T) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(event(t, execution, "ABORTED", time.Now()), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	detail := func(m map[string]any) map[string]any { return m["detail"].(map[string]any) }
	tests := []struct {
		name string
		edit func(map[string]any)
		raw  string
		want string
	}{
		{name: "not JSON", raw: "not json " + secretInput, want: "not a JSON object"},
		{name: "an array", raw: `["` + secretInput + `"]`, want: "not a JSON object"},
		{name: "two objects", raw: `{"source":"aws.states"} {}`, want: "data after"},
		{name: "another source", edit: func(m map[string]any) { m["source"] = "aws.ecs" }, want: `source is "aws.ecs"`},
		{name: "another detail-type", edit: func(m map[string]any) { m["detail-type"] = "AWS API Call via CloudTrail" }, want: "detail-type is"},
		{name: "no detail", edit: func(m map[string]any) { delete(m, "detail") }, want: "no detail"},
		{name: "a state machine ARN", edit: func(m map[string]any) { detail(m)["executionArn"] = machine }, want: "executionArn"},
		{name: "ARN not a string", edit: func(m map[string]any) { detail(m)["executionArn"] = 12 }, want: "not a JSON object"},
		{name: "unknown status", edit: func(m map[string]any) { detail(m)["status"] = "STOPPED" }, want: `status is "STOPPED"`},
		{name: "no status", edit: func(m map[string]any) { delete(detail(m), "status") }, want: "status is missing"},
		{name: "stopDate a string", edit: func(m map[string]any) { detail(m)["stopDate"] = "yesterday" }, want: "stopDate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, execution, "")
			payload := []byte(tt.raw)
			if tt.edit != nil {
				m := good(t)
				tt.edit(m)
				payload, _ = json.Marshal(m)
			}
			out, err := f.handler.Invoke(context.Background(), payload)
			if err != nil {
				t.Fatalf("Invoke = %v, want the event acknowledged", err)
			}
			var resp Response
			if err := json.Unmarshal(out, &resp); err != nil || !strings.Contains(resp.Ignored, tt.want) {
				t.Errorf("response %s, want ignored for %q", out, tt.want)
			}
			if got := f.get(t, a.ID).Status; got != workflow.StatusPending {
				t.Errorf("a malformed event changed a request to %s", got)
			}
			logs := f.logs.String()
			if !strings.Contains(logs, `"level":"warn"`) || strings.Contains(logs, secretInput) {
				t.Errorf("logs = %s; want a warning without the event's content", logs)
			}
		})
	}
}

// Slack failures never fail the invocation: the requests are closed, and
// after two failed calls in a row the other messages are left to the
// bot's sweeper (on the message queue) without more calls.
func TestHandleLeavesMessagesToTheSweeperWhenSlackFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := []string{f.request(t, execution, "").ID, f.request(t, execution, "").ID, f.request(t, execution, "").ID}
	f.poster.updateErr = errors.New("slack chat.update: ratelimited (retry after 30s)")
	resp, err := f.handler.Handle(context.Background(), event(t, execution, "TIMED_OUT", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Closed) != 3 || len(resp.Unsynced) != 3 {
		t.Errorf("response = %+v; want 3 closed, 3 left to the sweeper", resp)
	}
	if _, _, calls := f.poster.counts(); calls != slackFailureLimit {
		t.Errorf("Slack calls = %d, want %d before giving up", calls, slackFailureLimit)
	}
	unsynced, err := f.svc.Unsynced(context.Background(), 10)
	if err != nil || len(unsynced) != 3 {
		t.Errorf("message queue = %d, %v; want the 3 messages for the sweeper", len(unsynced), err)
	}
	for _, id := range ids {
		if got := f.get(t, id).Status; got != workflow.StatusCancelled {
			t.Errorf("%s is %s, want cancelled despite Slack", id, got)
		}
	}
}

// A failed reply is logged; the message is updated and synced.
func TestHandleLogsAFailedReply(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, execution, "")
	f.poster.replyErr = errors.New("slack chat.postMessage: not_in_channel")
	resp, err := f.handler.Handle(context.Background(), event(t, execution, "FAILED", time.Now()))
	if err != nil || len(resp.Unsynced) != 0 || !f.get(t, a.ID).MessageSynced {
		t.Errorf("response %+v, %v; want the message updated and synced", resp, err)
	}
	if !strings.Contains(f.logs.String(), "thread reply not posted") {
		t.Error("the failed reply was not logged")
	}
}

// Without time left for Slack, the messages are the sweeper's.
func TestHandleKeepsTimeInReserve(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.request(t, execution, "")
	ctx, cancel := context.WithTimeout(context.Background(), f.handler.SlackReserve/2)
	defer cancel()
	resp, err := f.handler.Handle(ctx, event(t, execution, "ABORTED", time.Now()))
	if err != nil || len(resp.Closed) != 1 || len(resp.Unsynced) != 1 {
		t.Errorf("response %+v, %v; want closed and left to the sweeper", resp, err)
	}
	if _, _, calls := f.poster.counts(); calls != 0 {
		t.Errorf("Slack calls = %d, want none", calls)
	}
}

// A store failure is StoreUnavailable (so Lambda retries the event); the
// retry closes the requests.
func TestHandleStoreOutageIsStoreUnavailable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, execution, "")
	ev := event(t, execution, "ABORTED", time.Now())
	f.store.SetErr(errors.New("RequestLimitExceeded"))
	_, err := lambda.NewHandler(f.handler).Invoke(context.Background(), ev)
	if err == nil || reflect.TypeOf(err).Elem().Name() != ErrorStoreUnavailable || !strings.Contains(err.Error(), execution) {
		t.Fatalf("Invoke = %#v, want errorType %s naming the execution", err, ErrorStoreUnavailable)
	}
	f.store.SetErr(nil)
	if resp, err := f.handler.Handle(context.Background(), ev); err != nil || len(resp.Closed) != 1 || resp.Closed[0] != a.ID {
		t.Errorf("retry = %+v, %v; want %s closed", resp, err, a.ID)
	}
}

// The requester of a cancelled request is told once; a request without a
// requester, or with notifyRequester false, tells nobody.
func TestHandleTellsTheRequesterOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	off := false
	tell, _, err := f.svc.Request(ctx, workflow.Request{TaskToken: "AQB8-token-requester-" + workflow.TaskToken(strings.Repeat("y", 40)), ExecutionARN: execution,
		StateName: "Approve", Channel: "C0123ABCD", Approvers: []string{"U0123ABCD"}, RequestedBy: "U0ASKER", Title: "Asked"})
	if err != nil {
		t.Fatal(err)
	}
	quiet, _, err := f.svc.Request(ctx, workflow.Request{TaskToken: "AQB8-token-quiet-" + workflow.TaskToken(strings.Repeat("y", 40)), ExecutionARN: execution,
		StateName: "Approve", Channel: "C0123ABCD", Approvers: []string{"U0123ABCD"}, RequestedBy: "U0ASKER", Title: "Quiet", NotifyRequester: &off})
	if err != nil {
		t.Fatal(err)
	}
	f.request(t, execution, "") // no requester
	for i, a := range []workflow.Approval{tell, quiet} {
		if _, err := f.svc.RecordMessage(ctx, a.ID, "C0123ABCD", fmt.Sprintf("1700000001.%06d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := f.handler.Handle(ctx, event(t, execution, "ABORTED", time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	f.poster.mu.Lock()
	defer f.poster.mu.Unlock()
	if len(f.poster.notices) != 1 || f.poster.notices[0].ID != tell.ID || f.poster.notices[0].Status != workflow.StatusCancelled {
		t.Errorf("notices = %+v, want one about %s", f.poster.notices, tell.ID)
	}
}
