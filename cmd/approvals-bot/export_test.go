package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// recording is a Store that keeps a copy of every audit event the changes
// it stores record, as the store writes them with the change (with the
// record of what was decided on a vote or decision).
type recording struct {
	workflow.Store
	mu     sync.Mutex
	events map[string]workflow.AuditEvent // by approval and seq
}

// WritesAuditEvents: the DynamoDB store it wraps writes them itself.
func (r *recording) WritesAuditEvents() {}

func (r *recording) keep(events []workflow.AuditEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range events {
		r.events[fmt.Sprintf("%s#%06d", e.ApprovalID, e.Seq)] = e
	}
}

func (r *recording) Create(ctx context.Context, a workflow.Approval) (workflow.Approval, bool, error) {
	stored, created, err := r.Store.Create(ctx, a)
	if created {
		r.keep(workflow.WithRecords(a, a.AuditOutbox))
	}
	return stored, created, err
}

func (r *recording) Update(ctx context.Context, id string, change func(*workflow.Approval) error) (workflow.Approval, error) {
	var events []workflow.AuditEvent
	stored, err := r.Store.Update(ctx, id, func(a *workflow.Approval) error {
		err := change(a)
		events = workflow.WithRecords(*a, a.AuditOutbox)
		return err
	})
	if err == nil {
		r.keep(events)
	}
	return stored, err
}

// sorted returns the events kept, by time, then approval and seq.
func (r *recording) sorted() []workflow.AuditEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := slices.Sorted(maps.Keys(r.events))
	out := make([]workflow.AuditEvent, 0, len(keys))
	for _, k := range keys {
		out = append(out, r.events[k])
	}
	slices.SortStableFunc(out, func(a, b workflow.AuditEvent) int { return a.At.Compare(b.At) })
	return out
}

// The events of approvals decided over two days come back from the
// binary's -export-audit as JSON lines, in time order, exactly the range
// asked for, without a task token.
func TestExportAuditRoundTrip(t *testing.T) {
	t.Parallel()
	table := fmt.Sprintf("bot-audit-%d", time.Now().UnixNano())
	create := exec.Command(botBinary, "-create-table")
	create.Env = awsEnv(table)
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("-create-table: %v\n%s", err, out)
	}
	client, err := dynamolocal.Client(t.Context(), ddbEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	store := &recording{Store: dynamo.New(client, table, dynamo.AuditRetention(24*time.Hour)), events: map[string]workflow.AuditEvent{}}
	resumer := workflowtest.NewResumer()
	svc := workflow.NewService(store, resumer, nil)
	svc.Audit = dynamo.NewAuditLog(client, table, 24*time.Hour)
	day := time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)
	now := day
	svc.Now = func() time.Time { return now }
	var tokens []string
	for i, step := range []time.Duration{0, 30 * time.Minute, 75 * time.Minute} {
		now = day.Add(step)
		token := fmt.Sprintf("token-export-%d-%d", i, time.Now().UnixNano())
		tokens = append(tokens, token)
		resumer.Open(token)
		a, _, err := svc.Request(t.Context(), workflow.Request{
			TaskToken: workflow.TaskToken(token), ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:export-" + fmt.Sprint(i),
			StateName: "Approve", Channel: "C0AUDIT", Approvers: []string{"U0ALICE"}, RequestedBy: "U0REQ", Title: "Export " + fmt.Sprint(i),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.RecordMessage(t.Context(), a.ID, "C0AUDIT", fmt.Sprintf("1700000000.00000%d", i)); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
		if _, err := svc.Decide(t.Context(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: "U0ALICE", Text: "ok"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.MessageSynced(t.Context(), a.ID); err != nil { // the message updated, as the bot records it
			t.Fatal(err)
		}
	}
	since, until := day.Add(30*time.Minute), day.Add(76*time.Minute) // the second and part of the third, across midnight

	cmd := exec.Command(botBinary, "-export-audit", "-since", since.Format(time.RFC3339), "-until", until.Format(time.RFC3339))
	cmd.Env = awsEnv(table)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("-export-audit: %v\n%s", err, stderr.String())
	}
	var got []workflow.AuditEvent
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var e workflow.AuditEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, e)
	}
	var want []workflow.AuditEvent
	for _, e := range store.sorted() {
		if !e.At.Before(since) && e.At.Before(until) {
			want = append(want, e)
		}
	}
	if len(want) != 6 {
		t.Fatalf("the test exports %d events, want 6 (the second approval's four, the third's first two)", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported events (-want +got):\n%s", diff)
	}
	for _, token := range tokens {
		if strings.Contains(stdout.String()+stderr.String(), token) {
			t.Error("the export holds a task token")
		}
	}
	if !strings.Contains(stderr.String(), `"events":6`) {
		t.Errorf("the log does not count the events exported:\n%s", stderr.String())
	}
}
