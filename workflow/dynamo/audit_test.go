package dynamo

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

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

// An audit record is never replaced: writing an event again through the
// AuditLog (as a retry does, or with other content, as a bug or a
// compromised caller might) leaves the first record as it was, and a
// change whose write would add an audit record that exists is refused
// whole, the approval unchanged.
func TestAuditRecordsAreNeverOverwritten(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 1)
	ctx := t.Context()
	a := r.request(t, nil)
	if _, err := r.svcs[0].Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0ALICE"}); err != nil {
		t.Fatal(err)
	}
	if err := r.svcs[0].MessageSynced(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	trail := func() []workflow.AuditEvent {
		t.Helper()
		var got []workflow.AuditEvent
		if err := r.audit.Export(ctx, t0.Add(-time.Hour), r.clock.Now().Add(time.Hour), func(e workflow.AuditEvent) error {
			if e.ApprovalID == a.ID {
				got = append(got, e)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	before := trail()
	if len(before) < 3 || before[2].Type != workflow.EventDecided {
		t.Fatalf("trail = %+v", before)
	}

	forged := before[2]
	forged.Actor, forged.Action, forged.Record = "U0MALLORY", workflow.ActionReject, nil
	if err := r.audit.Append(ctx, a, []workflow.AuditEvent{forged, before[0]}); err != nil {
		t.Fatalf("Append of events already written: %v", err)
	}
	if diff := cmp.Diff(before, trail()); diff != "" {
		t.Errorf("the AuditLog replaced audit records (-was +now):\n%s", diff)
	}

	stored, err := r.svcs[0].Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := New(client, r.table)
	_, err = s.Update(ctx, a.ID, func(x *workflow.Approval) error {
		x.Title = "changed"
		x.AuditOutbox = append(x.AuditOutbox, forged)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "never overwritten") {
		t.Errorf("a change that rewrites an audit record: %v", err)
	}
	if got, _ := r.svcs[0].Get(ctx, a.ID); !cmp.Equal(stored, got) {
		t.Errorf("the refused change changed the approval (-was +now):\n%s", cmp.Diff(stored, got))
	}
	if diff := cmp.Diff(before, trail()); diff != "" {
		t.Errorf("the store replaced audit records (-was +now):\n%s", diff)
	}
}
