package dynamo

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func event(id string, seq int, at time.Time, typ workflow.EventType, actor string) workflow.AuditEvent {
	return workflow.AuditEvent{ApprovalID: id, Seq: seq, At: at, Type: typ, Actor: actor}
}

// Events come back in time order across days, within [since, until), as
// written, however often they were written.
func TestAuditExportRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	log := NewAuditLog(client, s.table, 400*24*time.Hour)
	ctx := t.Context()
	midnight := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	draft, deadline := 1, midnight.Add(time.Hour)
	a := workflow.Approval{ID: "ap_a", Title: "Publish A", Channel: "C0123", MessageTS: "1.1"}
	b := workflow.Approval{ID: "ap_b", Title: "Publish B", Channel: "C0123", MessageTS: "1.2"}
	aEvents := []workflow.AuditEvent{
		{ApprovalID: "ap_a", Seq: 1, At: midnight.Add(-time.Hour), Type: workflow.EventRequested, Actor: "U0REQ", Users: []string{"U0ALICE", "S0TEAM"},
			ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:run-1", StateName: "Approve", Title: "Publish A",
			RequestedBy: "U0REQ", Deadline: &deadline, Quorum: 2, EscalateTo: []string{"U0BOSS"}, OnDeadline: workflow.ActionReject, Channel: "C0123"},
		{ApprovalID: "ap_a", Seq: 2, At: midnight.Add(-time.Nanosecond), Type: workflow.EventVoted, Actor: "U0ALICE", Action: workflow.ActionApprove, DraftIndex: &draft, Comment: "fine",
			Edited: true, Record: &workflow.DecisionRecord{Title: "Publish A", Summary: "*sum*", Fields: []workflow.RecordField{{Label: "L", Value: "V"}},
				Drafts:  []workflow.RecordText{workflow.RecordOf("one"), workflow.RecordOf(strings.Repeat("x", workflow.MaxRecordedTextBytes+1))},
				Decided: &workflow.RecordText{Text: "two, edited", SHA256: "ab", Length: 11}}},
		{ApprovalID: "ap_a", Seq: 3, At: midnight.Add(time.Minute), Type: workflow.EventClosed, Status: workflow.StatusCancelled, Reason: "execution aborted"},
	}
	bEvents := []workflow.AuditEvent{
		event("ap_b", 1, midnight, workflow.EventRequested, "U0REQ"),
		event("ap_b", 2, midnight.Add(time.Minute), workflow.EventDelegated, "U0ALICE"),
	}
	bEvents[1].Users = []string{"U0BOB"}
	for range 2 { // written again, as a retry does
		if err := log.Append(ctx, a, aEvents); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(ctx, b, bEvents); err != nil {
			t.Fatal(err)
		}
	}
	export := func(since, until time.Time) []workflow.AuditEvent {
		t.Helper()
		var got []workflow.AuditEvent
		if err := log.Export(ctx, since, until, func(e workflow.AuditEvent) error { got = append(got, e); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	all := []workflow.AuditEvent{aEvents[0], aEvents[1], bEvents[0], aEvents[2], bEvents[1]}
	if diff := cmp.Diff(all, export(midnight.Add(-24*time.Hour), midnight.Add(24*time.Hour))); diff != "" {
		t.Errorf("export of both days (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all[1:3], export(midnight.Add(-time.Nanosecond), midnight.Add(time.Minute))); diff != "" {
		t.Errorf("export of [23:59:59.999999999, 00:01) (-want +got):\n%s", diff)
	}
	if got := export(midnight.Add(2*time.Minute), midnight.Add(3*time.Minute)); len(got) != 0 {
		t.Errorf("export of an empty range = %v", got)
	}
	stop := errors.New("enough")
	n := 0
	err := log.Export(ctx, midnight.Add(-24*time.Hour), midnight.Add(24*time.Hour), func(workflow.AuditEvent) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Export went on after fn failed: %d calls, %v", n, err)
	}

	h, err := log.History(ctx, "U0ALICE", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h {
		got = append(got, e.Event.ApprovalID+" "+string(e.Event.Type)+" "+e.Title+" "+e.Channel+" "+e.MessageTS)
	}
	if diff := cmp.Diff([]string{"ap_b delegated Publish B C0123 1.2", "ap_a voted Publish A C0123 1.1"}, got); diff != "" {
		t.Errorf("history, newest first (-want +got):\n%s", diff)
	}

	for _, item := range rawItems(t, s, "") {
		purge, ok := item[attrPurgeAt].(*types.AttributeValueMemberN)
		if !ok {
			t.Errorf("item %v has no purgeAt: never deleted", item[attrID])
			continue
		}
		at, _ := time.Parse(time.RFC3339Nano, item["at"].(*types.AttributeValueMemberS).Value)
		if got, _ := strconv.ParseInt(purge.Value, 10, 64); got != at.Add(400*24*time.Hour).Unix() {
			t.Errorf("item %v is kept until %d, want 400 days after its event", item[attrID], got)
		}
		if isApproval(item) {
			t.Errorf("item %v reads as an approval", item[attrID])
		}
	}
}

// A history entry never goes back to an older act, whatever order the
// writes land in.
func TestHistoryKeepsTheLatestAct(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	log := NewAuditLog(client, s.table, time.Hour)
	ctx := context.Background()
	a := workflow.Approval{ID: "ap_h", Title: "T"}
	newer := event("ap_h", 5, t0.Add(time.Minute), workflow.EventDecided, "U0ALICE")
	older := event("ap_h", 3, t0, workflow.EventVoted, "U0ALICE")
	system := event("ap_h", 6, t0.Add(2*time.Minute), workflow.EventResumed, "U0ALICE")
	deadline := event("ap_h", 4, t0, workflow.EventDecided, workflow.DecidedByDeadline)
	for _, batch := range [][]workflow.AuditEvent{{newer}, {older, deadline}, {system}} {
		if err := log.Append(ctx, a, batch); err != nil {
			t.Fatal(err)
		}
	}
	h, err := log.History(ctx, "U0ALICE", 10)
	if err != nil || len(h) != 1 || h[0].Event.Seq != 5 {
		t.Fatalf("history = %+v, %v; want the decision only", h, err)
	}
	if h, _ := log.History(ctx, workflow.DecidedByDeadline, 10); len(h) != 0 {
		t.Errorf("the deadline has a history: %+v", h)
	}
}

// throttled is DynamoDB throttling BatchWriteItem: its first calls write
// only the first item of the batch (none with stuck) and return the rest
// as UnprocessedItems, as DynamoDB does when a partition is over capacity.
type throttled struct {
	*dynamodb.Client
	throttle int // calls left to throttle
	stuck    bool
	calls    int
}

func (c *throttled) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.calls++
	if c.throttle == 0 {
		return c.Client.BatchWriteItem(ctx, in, opts...)
	}
	c.throttle--
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	for table, reqs := range in.RequestItems {
		if c.stuck {
			out.UnprocessedItems[table] = reqs
			continue
		}
		if _, err := c.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs[:1]}}, opts...); err != nil {
			return nil, err
		}
		if len(reqs) > 1 {
			out.UnprocessedItems[table] = reqs[1:]
		}
	}
	return out, nil
}

// Events are written 25 to a call, and items DynamoDB leaves unprocessed
// are written again; a batch still unprocessed after the last attempt is
// an error, so the events stay in the approval's outbox.
func TestAuditAppendBatchesAndRetriesUnprocessed(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var events []workflow.AuditEvent
	for i := range 30 {
		events = append(events, event("ap_many", i+1, start.Add(time.Duration(i)*time.Second), workflow.EventReminded, ""))
	}
	c := &throttled{Client: client, throttle: 2}
	log := NewAuditLog(c, s.table, time.Hour)
	if err := log.Append(ctx, workflow.Approval{ID: "ap_many"}, events); err != nil {
		t.Fatal(err)
	}
	var got []workflow.AuditEvent
	if err := log.Export(ctx, start, start.Add(time.Hour), func(e workflow.AuditEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(events, got); diff != "" {
		t.Errorf("exported (-want +got):\n%s", diff)
	}
	// 25 items, throttled twice, then the last 5.
	if c.calls != 4 {
		t.Errorf("%d BatchWriteItem calls, want 4 (two throttled, one for the rest of the first 25, one for the last 5)", c.calls)
	}

	c = &throttled{Client: client, throttle: batchWriteAttempts, stuck: true}
	log = NewAuditLog(c, s.table, time.Hour)
	err := log.Append(ctx, workflow.Approval{ID: "ap_stuck"}, []workflow.AuditEvent{
		event("ap_stuck", 1, start, workflow.EventReminded, ""), event("ap_stuck", 2, start, workflow.EventEscalated, ""),
	})
	if err == nil || c.calls != batchWriteAttempts {
		t.Errorf("Append = %v after %d calls, want an error after %d", err, c.calls, batchWriteAttempts)
	}
}
